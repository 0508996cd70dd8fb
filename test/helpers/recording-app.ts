import type { App } from '@slack/bolt';

/** One listener a feature registered on the app: its kind and what it listens for. */
export interface Registration {
  kind: 'command' | 'shortcut' | 'action' | 'view' | 'event' | 'message' | 'options';
  /** The command, event type or callback_id/action_id as a string, or a RegExp's source for a pattern. */
  id: string;
  pattern: boolean;
}

/** The id of a Bolt constraint: a string, a RegExp, or an object with `callback_id`/`action_id`/`type`. */
function idOf(constraint: unknown): { id: string; pattern: boolean } {
  if (typeof constraint === 'string') return { id: constraint, pattern: false };
  if (constraint instanceof RegExp) return { id: constraint.source, pattern: true };
  const c = constraint as { callback_id?: unknown; action_id?: unknown; type?: unknown };
  const inner = c.callback_id ?? c.action_id ?? c.type;
  return idOf(inner);
}

/**
 * A fake Bolt `App` that records what is registered on it (commands, shortcuts, actions, views,
 * events) and runs nothing, for comparing the listeners the features register with a table.
 */
export function recordingApp(): { app: App; registrations: Registration[] } {
  const registrations: Registration[] = [];
  const recorder =
    (kind: Registration['kind']) =>
    (constraint: unknown, ..._listeners: unknown[]): void =>
      void registrations.push({ kind, ...idOf(constraint) });
  const app = {
    command: recorder('command'),
    shortcut: recorder('shortcut'),
    action: recorder('action'),
    view: recorder('view'),
    event: recorder('event'),
    message: recorder('message'),
    options: recorder('options'),
    use: () => undefined,
    error: () => undefined,
  };
  return { app: app as unknown as App, registrations };
}

/**
 * Stands for any dependency a listener factory is handed: every property is another such value and
 * it may be called, so `register(app, anything())` builds the listeners without their real parts.
 */
export function anything(): never {
  const target = function () {} as unknown as object;
  const proxy: object = new Proxy(target, {
    get: (_t, prop) => (prop === 'then' ? undefined : proxy),
    apply: () => proxy,
  });
  return proxy as never;
}
