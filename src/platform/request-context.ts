import { AsyncLocalStorage } from 'node:async_hooks';
import { PlatformErrorCode, type CodedError } from './errors.js';

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
  /**
   * OAuth mode: the Enterprise Grid org of the installation the request came through (Bolt's
   * `context.enterpriseId`), recorded with its work so a worker uses the same installation's token.
   */
  enterpriseId?: string;
  /** OAuth mode: the request came through an org-wide install (Bolt's `context.isEnterpriseInstall`). */
  enterpriseInstall?: boolean;
}

/**
 * Which installation a piece of work belongs to (OAuth mode): the workspace, and for Grid the org
 * and whether the install is org-wide. Recorded with intake records, job records and queued jobs;
 * never a token.
 */
export type InstallationRef = Pick<RequestContext, 'teamId' | 'enterpriseId' | 'enterpriseInstall'>;

/** The installation fields of `ctx` that are set (an empty object when none is). */
export function installationRefOf(ctx: InstallationRef | undefined): InstallationRef {
  if (!ctx) return {};
  return {
    ...(ctx.teamId ? { teamId: ctx.teamId } : {}),
    ...(ctx.enterpriseId ? { enterpriseId: ctx.enterpriseId } : {}),
    ...(ctx.enterpriseInstall !== undefined ? { enterpriseInstall: ctx.enterpriseInstall } : {}),
  };
}

/**
 * The current request's Grid installation fields (`enterpriseId`, `enterpriseInstall`), to record
 * with work that outlives the request; `{}` outside a request and in single-token mode (where they
 * are never set), so records there stay as they were.
 */
export function currentEnterpriseRef(): Pick<InstallationRef, 'enterpriseId' | 'enterpriseInstall'> {
  const { enterpriseId, enterpriseInstall } = installationRefOf(currentRequestContext());
  return {
    ...(enterpriseId ? { enterpriseId } : {}),
    ...(enterpriseInstall !== undefined ? { enterpriseInstall } : {}),
  };
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

/**
 * The workspace that keys a request's records, budgets and markers (job and answer records, the
 * workers' installation, App Home limits), given the body's workspace as `fallback`. OAuth mode:
 * the current installation's (the request context's `teamId`: Bolt's authorize result for a
 * workspace install, which in a Slack Connect channel can differ from the body's top-level
 * `team_id` or a view's `team.id`; the request's own workspace for an org-wide install), so the
 * other side's messages are the installing side's work. Single-token mode: `fallback`, as before.
 * The person's own team is another thing: the access policy reads it from `users.info`.
 */
export function installationTeamId(fallback: string): string {
  const c = currentRequestContext();
  return c?.enterpriseInstall !== undefined && c.teamId ? c.teamId : fallback;
}

/**
 * OAuth mode: the installation the current request (or worker's work) runs as, named as the
 * installation store names it: `enterprise:E…` for an org-wide install, else `team:T…`. Undefined
 * in single-token mode (no `enterpriseInstall` in the context) and outside a request, so what is
 * keyed by it there stays as it was.
 */
export function currentInstallationSlot(): string | undefined {
  const c = currentRequestContext();
  if (c?.enterpriseInstall === undefined) return undefined;
  return installationSlotOf(c);
}

/**
 * The installation `ref` names, as the installation store names it: `enterprise:E…` when it is
 * org-wide (`enterpriseInstall` and an `enterpriseId`), else `team:T…`; undefined without a
 * `teamId` then. What per-installation state is keyed by (channel settings, the agent budget) and
 * what an uninstall removes (a digest schedule's recorded ref read this way).
 */
export function installationSlotOf(ref: InstallationRef): string | undefined {
  if (ref.enterpriseInstall && ref.enterpriseId) return `enterprise:${ref.enterpriseId}`;
  return ref.teamId ? `team:${ref.teamId}` : undefined;
}

/**
 * OAuth mode: `what` (state kept per installation: the agent budget, channel settings) was asked
 * for with no installation in the request context (outside a request, or work recorded without
 * its installation). Refused rather than read or write the single-token keys every installation
 * would share; callers treat it as they treat a Redis error ("I couldn't check…"). The message
 * names what was refused, never a token or an id.
 */
export class NoInstallationError extends Error implements CodedError<typeof PlatformErrorCode.InstallationMissing> {
  readonly code = PlatformErrorCode.InstallationMissing;
  constructor(readonly what: string) {
    super(`no installation in the request context for ${what} (OAuth mode); refused rather than use shared keys`);
    this.name = 'NoInstallationError';
  }
}

/**
 * The installation `what` is kept under: `installationOf()` (OAuth mode, e.g.
 * {@link currentInstallationSlot}), or undefined when there is no `installationOf` (single-token
 * mode: the keys stay as they were).
 * @throws NoInstallationError (`installation_missing`) in OAuth mode when `installationOf()` gives none.
 */
export function requiredSlot(installationOf: (() => string | undefined) | undefined, what: string): string | undefined {
  if (!installationOf) return undefined;
  const slot = installationOf();
  if (!slot) throw new NoInstallationError(what);
  return slot;
}
