import type { Queue } from 'bullmq';
import { currentEnterpriseRef, installationRefOf, installationSlotOf } from '../../../platform/request-context.js';
import type { DigestSchedule } from './schedule.js';
import { sectionsOf, type DigestSection } from './sections.js';

/** Data of a digest job (set by the channel's job scheduler, or by `/docs-visitors digest`). */
export interface DigestJobData {
  teamId: string;
  /** OAuth mode: the Grid org of the installation it was subscribed through (absent: single-token mode, or a workspace install). */
  enterpriseId?: string;
  /** OAuth mode: that installation is org-wide; with `teamId` and `enterpriseId`, whose token the digest is posted with. */
  enterpriseInstall?: boolean;
  channel: string;
  /** Who subscribed (or asked for a test delivery). */
  requestedBy: string;
  /** IANA time zone whose calendar days the digest covers (the schedule's); default DIGEST_TZ. */
  tz?: string;
  /** `scheduled` by the channel's job scheduler, or `manual` (`/docs-visitors digest`, Retry). Default `scheduled`. */
  trigger?: 'scheduled' | 'manual';
  /** Manual runs: the request's response_url, to answer privately when the digest cannot be posted. */
  responseUrl?: string;
  /** The sections the channel chose (`subscribe … sections=`); absent: all of them. */
  sections?: DigestSection[];
}

/**
 * Digest subscriptions are BullMQ job schedulers on the `send-digest` queue, one per channel
 * (`upsertJobScheduler` with a cron `pattern` and `tz`). The scheduler id is derived from team and
 * channel, so subscribing again (from any replica) updates the same scheduler instead of adding a
 * second one, and BullMQ hands each run to exactly one worker. Schedulers live in Redis and survive
 * restarts; there is no other record to keep in step.
 */

/** Options of every digest job (scheduled or manual): 3 attempts, 30 s exponential backoff. */
export const DIGEST_JOB_OPTIONS = {
  attempts: 3,
  backoff: { type: 'exponential', delay: 30_000 },
  removeOnComplete: { age: 7 * 24 * 3600, count: 1000 },
  removeOnFail: { age: 30 * 24 * 3600 },
} as const;

/** A channel's digest subscription as read back from BullMQ. */
interface Subscription {
  schedulerId: string;
  teamId: string;
  channel: string;
  /** Who subscribed (Slack user id). */
  requestedBy: string;
  schedule: DigestSchedule;
  /** Next delivery, epoch ms (BullMQ's `next`), when known. */
  nextRunMs?: number;
  /** The sections it sends (all of them unless the channel chose some). */
  sections: DigestSection[];
}

/**
 * Job scheduler id of a channel's digest: `digest-<team>-<channel>` (Slack ids are `[A-Z0-9]`;
 * anything else is replaced, and BullMQ ids avoid `:`).
 */
export function digestSchedulerId(teamId: string, channel: string): string {
  const clean = (s: string) => s.replace(/[^A-Za-z0-9_-]/g, '_');
  return `digest-${clean(teamId)}-${clean(channel)}`;
}

function toSubscription(json: {
  key: string;
  id?: string | null;
  pattern?: string;
  tz?: string;
  next?: number;
  template?: { data?: DigestJobData };
}): Subscription | undefined {
  const data = json.template?.data;
  if (!data?.teamId || !data.channel || !json.pattern) return undefined;
  return {
    schedulerId: json.id ?? json.key,
    teamId: data.teamId,
    channel: data.channel,
    requestedBy: data.requestedBy,
    schedule: { pattern: json.pattern, tz: json.tz ?? 'UTC' },
    sections: sectionsOf(data.sections),
    ...(json.next !== undefined ? { nextRunMs: Number(json.next) } : {}),
  };
}

/**
 * Subscribes a channel (or changes its schedule): `upsertJobScheduler(digest-<team>-<channel>,
 * {pattern, tz}, template)`. Idempotent across replicas.
 *
 * @returns the subscription as BullMQ now holds it, with the next delivery time.
 * @throws the BullMQ/Redis error if the scheduler cannot be written (e.g. an invalid cron).
 */
export async function subscribeChannel(
  queue: Queue<DigestJobData>,
  req: {
    teamId: string;
    channel: string;
    requestedBy: string;
    schedule: DigestSchedule;
    sections?: DigestSection[] | undefined;
  },
): Promise<Subscription> {
  const id = digestSchedulerId(req.teamId, req.channel);
  const chosen = req.sections && req.sections.length > 0 ? { sections: sectionsOf(req.sections) } : {};
  const { teamId, channel, requestedBy } = req;
  const data: DigestJobData = {
    teamId,
    ...currentEnterpriseRef(),
    channel,
    requestedBy,
    tz: req.schedule.tz,
    trigger: 'scheduled',
    ...chosen,
  };
  const next = await queue.upsertJobScheduler(
    id,
    { pattern: req.schedule.pattern, tz: req.schedule.tz },
    { name: 'digest', data, opts: DIGEST_JOB_OPTIONS },
  );
  const stored = await getSubscription(queue, req.teamId, req.channel);
  const fallbackNext = next?.timestamp !== undefined ? next.timestamp + (next.opts.delay ?? 0) : undefined;
  return (
    stored ?? {
      schedulerId: id,
      teamId: req.teamId,
      channel: req.channel,
      requestedBy: req.requestedBy,
      schedule: req.schedule,
      sections: sectionsOf(req.sections),
      ...(fallbackNext !== undefined ? { nextRunMs: fallbackNext } : {}),
    }
  );
}

/**
 * Removes a channel's job scheduler (its next, not yet started, run goes with it).
 * @returns whether there was a subscription.
 */
export async function unsubscribeChannel(
  queue: Queue<DigestJobData>,
  teamId: string,
  channel: string,
): Promise<boolean> {
  return queue.removeJobScheduler(digestSchedulerId(teamId, channel));
}

/** A channel's subscription, or undefined. */
export async function getSubscription(
  queue: Pick<Queue<DigestJobData>, 'getJobScheduler'>,
  teamId: string,
  channel: string,
): Promise<Subscription | undefined> {
  const json = await queue.getJobScheduler(digestSchedulerId(teamId, channel));
  return json ? toSubscription(json) : undefined;
}

/** Every subscription of workspace `teamId`, soonest next delivery first. */
export async function listSubscriptions(queue: Queue<DigestJobData>, teamId: string): Promise<Subscription[]> {
  const all = await queue.getJobSchedulers(0, -1, true);
  return all
    .map((j) => toSubscription(j))
    .filter((s): s is Subscription => s !== undefined && s.teamId === teamId)
    .sort((a, b) => (a.nextRunMs ?? Infinity) - (b.nextRunMs ?? Infinity));
}

/** Job schedulers read per page when an uninstall looks for an installation's subscriptions. */
const SCHEDULER_PAGE = 500;
/** Job schedulers an uninstall reads at most (every workspace's subscribed channels): past it, `capped`. */
const SCHEDULER_CAP = 20_000;
/** Walks over the schedulers an uninstall makes at most while they move under it. */
const SCHEDULER_WALKS = 3;

/**
 * OAuth mode, on `app_uninstalled`: removes the job scheduler (and its next run) of every channel
 * subscribed through installation `slot` (`team:T…`, or `enterprise:E…` for an org-wide install),
 * as the worker would run it: the installation its recorded `teamId`, `enterpriseId` and
 * `enterpriseInstall` name (request-context's installationSlotOf). An org-wide install's
 * subscriptions carry each channel's workspace in their id and the org in their data, so they are
 * found by their data, page by page ({@link SCHEDULER_PAGE}, at most {@link SCHEDULER_CAP}); another
 * installation's are never removed. The pages are in next-run order, so a schedule that runs (or
 * another channel's that is added or removed) during the walk shifts the pages after it and can
 * hide one: a walk that did not see each scheduler exactly once is made again, up to
 * {@link SCHEDULER_WALKS} walks. Idempotent (a second call removes what is left).
 * @returns how many subscriptions were removed, and `capped` when some may be left: there were more
 *   schedulers than the cap, or they still moved during the last walk.
 * @throws the BullMQ/Redis error.
 */
export async function removeInstallationSubscriptions(
  queue: Pick<Queue<DigestJobData>, 'getJobSchedulersCount' | 'getJobSchedulers' | 'removeJobScheduler'>,
  slot: string,
): Promise<{ removed: number; capped: boolean }> {
  const ids = new Set<string>();
  let total = 0;
  let settled = false;
  for (let walk = 0; walk < SCHEDULER_WALKS && !settled; walk++) {
    total = await queue.getJobSchedulersCount();
    const seen = new Set<string>();
    let reads = 0;
    for (let start = 0; start < Math.min(total, SCHEDULER_CAP); start += SCHEDULER_PAGE) {
      const page = await queue.getJobSchedulers(start, Math.min(start + SCHEDULER_PAGE, SCHEDULER_CAP) - 1, true);
      for (const s of page) {
        const id = s.id ?? s.key;
        seen.add(id);
        reads++;
        const data = s.template?.data;
        if (data?.teamId && installationSlotOf(installationRefOf(data)) === slot) ids.add(id);
      }
    }
    const walked = Math.min(total, SCHEDULER_CAP);
    settled = reads === walked && seen.size === walked && (await queue.getJobSchedulersCount()) === total;
  }
  let removed = 0;
  for (const id of ids) if (await queue.removeJobScheduler(id)) removed++;
  return { removed, capped: total > SCHEDULER_CAP || !settled };
}

/** Width of the window in which repeated "send now" requests for one channel count as one, in ms. */
const MANUAL_DEDUPE_MS = 30_000;

/**
 * Queues a digest for `channel` now (`/docs-visitors digest`, or Retry after a failed run). Two
 * requests for the same channel within {@link MANUAL_DEDUPE_MS} share one job (same job id).
 *
 * @returns the BullMQ job id.
 */
export async function sendDigestNow(
  queue: Queue<DigestJobData>,
  req: {
    teamId: string;
    channel: string;
    requestedBy: string;
    tz: string;
    responseUrl?: string;
    sections?: DigestSection[];
  },
  nowMs: number,
): Promise<string> {
  const jobId = `manual-${digestSchedulerId(req.teamId, req.channel)}-${Math.floor(nowMs / MANUAL_DEDUPE_MS)}`;
  await queue.add('digest', { ...req, ...currentEnterpriseRef(), trigger: 'manual' }, { ...DIGEST_JOB_OPTIONS, jobId });
  return jobId;
}
