/**
 * The `views.*` Web API family of the fake Slack: Home tabs (`views.publish`) and modals
 * (`views.open` / `views.push` with a trigger_id the fake minted, `views.update` by view_id or
 * external_id). Slack docs: a `hash` that is not the view's latest answers `hash_conflict`; a
 * trigger_id the fake never minted answers `invalid_trigger_id`, one minted more than 3 s ago
 * `expired_trigger_id`, one already exchanged `exchanged_trigger_id` (see
 * {@link SlackState.exchangeTrigger}); a view that breaks Block Kit's rules answers
 * `invalid_arguments` or `view_too_large` (./block-kit/index.ts). The view is checked before the
 * trigger_id is exchanged: Slack's docs do not say whether a refused view uses up its trigger, and
 * the fake lets the app try again with a corrected view. Every accepted call is kept in `FakeSlack.views`.
 */
import { checkView } from './block-kit/index.js';
import { fail, obj, str, type Json, type MethodTable } from './method.js';
import type { SlackState } from './state.js';
import type { RecordedView } from './types.js';

/** A view object as Slack returns it (`views.*` responses' `view`). */
function viewJson(state: SlackState, id: string, view: Json, hash: string): Json {
  return {
    id,
    team_id: state.teamId,
    type: view.type ?? 'modal',
    blocks: view.blocks ?? [],
    private_metadata: view.private_metadata ?? '',
    callback_id: view.callback_id ?? '',
    state: { values: {} },
    hash,
    title: view.title ?? null,
    close: view.close ?? null,
    submit: view.submit ?? null,
    clear_on_close: false,
    notify_on_close: false,
    previous_view_id: null,
    root_view_id: id,
    app_id: state.appId,
    external_id: view.external_id ?? '',
    app_installed_team_id: state.teamId,
    bot_id: state.botId,
  };
}

/** Record `view` (a fresh id unless `extra.id`, a fresh hash) and answer with its view object. */
function recordView(
  state: SlackState,
  method: string,
  kind: 'home' | 'modal',
  view: unknown,
  extra: { userId?: string; triggerId?: string; id?: string },
): Json {
  const v = obj(view) ?? fail('invalid_arguments');
  const id = extra.id ?? `V${String(state.nextId()).padStart(8, '0')}`;
  const hash = `${Math.floor(state.now() / 1000)}.${String(state.nextId()).padStart(8, '0')}`;
  const recorded: RecordedView = { id, kind, view: v, hash, method };
  if (extra.userId) recorded.userId = extra.userId;
  if (extra.triggerId) recorded.triggerId = extra.triggerId;
  state.views.push(recorded);
  return { ok: true, view: viewJson(state, id, v, hash) };
}

/** The latest recorded state of the view with this id or external_id. */
function latestView(
  state: SlackState,
  id: string | undefined,
  externalId: string | undefined,
): RecordedView | undefined {
  for (let i = state.views.length - 1; i >= 0; i -= 1) {
    const v = state.views[i];
    if (v && ((id && v.id === id) || (externalId && v.view.external_id === externalId))) return v;
  }
  return undefined;
}

function publish(state: SlackState, args: Json): Json {
  const u = state.user(args.user_id) ?? fail('user_not_found');
  checkView(args.view, 'home');
  const previous = [...state.views].reverse().find((v) => v.kind === 'home' && v.userId === u.id);
  if (previous && str(args.hash) && args.hash !== previous.hash) fail('hash_conflict');
  return recordView(state, 'views.publish', 'home', args.view, {
    userId: u.id,
    ...(previous ? { id: previous.id } : {}),
  });
}

function openModal(state: SlackState, method: string, args: Json): Json {
  const trigger = str(args.trigger_id) ?? str(args.interactivity_pointer) ?? fail('invalid_arguments');
  checkView(args.view, 'modal');
  const userId = state.exchangeTrigger(trigger);
  return recordView(state, method, 'modal', args.view, { userId, triggerId: trigger });
}

function update(state: SlackState, args: Json): Json {
  const previous = latestView(state, str(args.view_id), str(args.external_id)) ?? fail('not_found');
  if (str(args.hash) && args.hash !== previous.hash) fail('hash_conflict');
  checkView(args.view, previous.kind);
  return recordView(state, 'views.update', previous.kind, args.view, {
    id: previous.id,
    ...(previous.userId ? { userId: previous.userId } : {}),
  });
}

/**
 * The `views.*` methods over `state`. Errors: `user_not_found`, `hash_conflict`, `invalid_arguments`,
 * `view_too_large`, `invalid_trigger_id`, `expired_trigger_id`, `exchanged_trigger_id`, `not_found`.
 */
export function viewsMethods(state: SlackState): MethodTable {
  return {
    'views.publish': (args) => publish(state, args),
    'views.open': (args) => openModal(state, 'views.open', args),
    'views.push': (args) => openModal(state, 'views.push', args),
    'views.update': (args) => update(state, args),
  };
}
