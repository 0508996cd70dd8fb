import { AsyncLocalStorage } from 'node:async_hooks';

/** What every log line caused by one Slack request (or its intake job) carries. */
export interface RequestContext {
  /**
   * The request's own id: the Events API envelope's `event_id`, an interaction's or command's
   * `trigger_id` (or the action's `action_ts`), or the intake job's id in a worker.
   */
  requestId: string;
  /**
   * The workspace (`T…`) the request happened in, when its body says: an org-wide install's
   * workspace-scoped calls need it as `team_id` (platform/slack/org-wide.ts).
   */
  teamId?: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

/** Runs `fn` with `ctx` as the current request context (for its whole async call tree). */
export function withRequestContext<T>(ctx: RequestContext, fn: () => T): T {
  return storage.run(ctx, fn);
}

/** The current request context, or undefined outside a request. */
export function currentRequestContext(): RequestContext | undefined {
  return storage.getStore();
}
