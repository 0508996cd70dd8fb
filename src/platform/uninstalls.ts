/**
 * What an uninstall removes besides the installation (OAuth mode): each feature that keeps state
 * per installation until someone removes it hands the composition root an {@link UninstallHook}
 * (compose.ts' `onUninstalled`), and the `app_uninstalled` listener (slack/oauth.ts) runs them once
 * the installation is deleted. The platform never imports a feature: it only runs what it is given.
 */
import type { Logger } from './logger.js';

/**
 * A feature's removal of what it keeps for one installation. `what` names the count in the log line
 * (`channelSettings`); `forget(slot)` deletes the installation's records and returns how many it
 * deleted (`removed`), and `capped` when it stopped at a bound with records maybe left. `slot` is the installation as the installation store names it (`team:T…`, or
 * `enterprise:E…` for an org-wide install; request-context's installationSlotOf). It must be
 * idempotent (a redelivered event runs it again, deleting what is left) and never touch another
 * installation's records. @throws the Redis error.
 */
export interface UninstallHook {
  what: string;
  forget(slot: string): Promise<{ removed: number; capped?: boolean }>;
}

/**
 * Runs every hook for the uninstalled installation `slot`, all at once, and logs one info line
 * (`removed the uninstalled installation's data`: the installation, its ids, and per hook the
 * number of records deleted; no names or text), a warn line instead when a hook stopped at its
 * bound (`capped`: the hooks whose records may be left). A hook that fails gets one warn line naming it; once
 * the others are done the first failure is thrown, so the event is not acknowledged and Slack sends
 * it again (the hooks being idempotent, that run finishes the job).
 * @param ids - the event's `teamId`, `enterpriseId`, `isEnterpriseInstall`, for the log line.
 * @throws the first hook's error.
 */
export async function forgetUninstalled(
  hooks: readonly UninstallHook[],
  slot: string,
  ids: Record<string, unknown>,
  logger: Pick<Logger, 'info' | 'warn'>,
): Promise<void> {
  const outcomes = await Promise.allSettled(hooks.map((h) => h.forget(slot)));
  const removed: Record<string, number> = {};
  const capped: string[] = [];
  let failure: { reason: unknown } | undefined;
  outcomes.forEach((o, i) => {
    const what = hooks[i]!.what;
    if (o.status === 'fulfilled') {
      removed[what] = o.value.removed;
      if (o.value.capped) capped.push(what);
      return;
    }
    failure ??= { reason: o.reason };
    logger.warn(
      { installation: slot, what, err: o.reason },
      "could not remove an uninstalled installation's data; not acknowledged, so Slack sends app_uninstalled again",
    );
  });
  if (failure) throw failure.reason;
  const line = { ...ids, installation: slot, removed };
  if (capped.length === 0) logger.info(line, "removed the uninstalled installation's data");
  else
    logger.warn(
      { ...line, capped },
      "removed the uninstalled installation's data up to its bound; the rest is left (docs/data.md, Deleting one workspace's data)",
    );
}
