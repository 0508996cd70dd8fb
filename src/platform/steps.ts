/**
 * Resumable work: the steps a piece of work (an intake's handler, an answer, an announcement) saved
 * durably before the step they guard, so a retry on any replica resumes it and never repeats an
 * irreversible step. One home for their shape ({@link Steps}), where they are kept (a BullMQ job's
 * data: {@link stepsOf}; elsewhere: {@link stepsOver}; nowhere: {@link memorySteps}), what confirms
 * them on the Redis replicas (a {@link StepGuard}), how their keys are named ({@link stepKeys}), and
 * the irreversible step most work takes: a Slack message posted at most once ({@link postOnce}).
 * CONTRIBUTING.md, "Adding a resumable step", says how to use it.
 */
import type { KnownBlock } from '@slack/types';
import { ErrorCode, type WebClient } from '@slack/web-api';
import type { Job } from 'bullmq';
import { hasCode } from './errors.js';
import type { Logger } from './logger.js';
import type { ReplicaGuard } from './replica-guard.js';

/** Progress of resumable work: steps saved durably before the step they guard. */
export interface Steps {
  progress: Record<string, unknown>;
  /** Saves steps durably (merged into `progress`). @throws on Redis errors. */
  save(patch: Record<string, unknown>): Promise<void>;
  /** True on the last try: report instead of throwing for another. */
  finalAttempt: boolean;
  /**
   * Before an irreversible step (`what` names it in logs): the steps saved so far would survive a
   * Redis failover (on the replicas, REDIS_WAIT_REPLICAS), so a retry after one cannot repeat the
   * step. Absent: the steps were made without a replica guard (kept in memory, or by work that
   * has none); with one but no replication (REDIS_WAIT_REPLICAS 0), it returns at once.
   * @throws UnreplicatedStepError when they can't be confirmed: act later, not now.
   */
  confirm?(what: string): Promise<void>;
}

/**
 * What confirms saved steps on the Redis replicas (REDIS_WAIT_REPLICAS): a {@link ReplicaGuard}, or
 * one whose mark was taken earlier ({@link guardSince}).
 */
export type StepGuard = Pick<ReplicaGuard, 'mark' | 'confirmSteps'>;

/**
 * Steps over `progress` (what earlier tries saved; merged into by each save), made durable by
 * `write(progress, patch)` after the merge. With `guard`, `confirm` waits for the replicas to hold
 * what was written since the steps were made (the guard's mark, taken now); without, there is none.
 */
export function stepsOver(
  progress: Record<string, unknown>,
  write: (progress: Record<string, unknown>, patch: Record<string, unknown>) => Promise<void>,
  o: { finalAttempt: boolean; guard?: StepGuard | undefined },
): Steps {
  const confirm = o.guard && confirmSince(o.guard);
  return {
    progress,
    save: async (patch) => {
      Object.assign(progress, patch);
      await write(progress, patch);
    },
    finalAttempt: o.finalAttempt,
    ...(confirm ? { confirm } : {}),
  };
}

/** Steps that live only in memory: a single try (tests, and callers with nothing to resume). */
export function memorySteps(): Steps {
  return stepsOver({}, async () => undefined, { finalAttempt: true });
}

/** What {@link stepsOf} reads of a BullMQ job: its data (with the steps on `progress`) and its tries. */
type StepsJob<D> = Pick<Job<D>, 'data' | 'updateData' | 'attemptsMade' | 'opts'>;
type StepsData = { progress?: Record<string, unknown> | undefined };

/**
 * The steps of the BullMQ job `job`: kept on its data's `progress` (`job.updateData`, so a retry on
 * any replica resumes from them), the last try when BullMQ will make no other. With `guard`,
 * `confirm` covers what was written since the steps were made (the guard's mark, taken now);
 * without, there is nothing to confirm.
 * @throws from `save`: the Redis error of `job.updateData`.
 */
export function stepsOf<D extends StepsData>(
  job: StepsJob<D>,
  guard: StepGuard,
): Steps & Required<Pick<Steps, 'confirm'>>;
export function stepsOf<D extends StepsData>(job: StepsJob<D>, guard?: StepGuard): Steps;
export function stepsOf<D extends StepsData>(job: StepsJob<D>, guard?: StepGuard): Steps {
  const data = job.data;
  const write = (progress: Record<string, unknown>) => job.updateData({ ...data, progress });
  return stepsOver({ ...data.progress }, write, {
    finalAttempt: job.attemptsMade + 1 >= (job.opts.attempts ?? 1),
    guard,
  });
}

/**
 * `Steps.confirm` for the steps saved from now on: `guard`'s mark taken now, and each confirm waits
 * for the Redis replicas to hold what was written up to it (REDIS_WAIT_REPLICAS).
 */
function confirmSince(guard: StepGuard): (what: string) => Promise<void> {
  const mark = guard.mark();
  return (what) => guard.confirmSteps(mark, what);
}

/** A {@link StepGuard} whose mark was taken earlier ({@link guardSince}): steps made with it cover what came before them. */
export type PinnedStepGuard = StepGuard & { readonly pinned: true };

/**
 * `guard` with its mark taken now, for steps made later that must also cover what was written
 * before them (the poller's announcement: the claim it wrote before its steps were read). Its own
 * type, so work that needs the earlier mark can't be given a guard that would take it later.
 */
export function guardSince(guard: StepGuard): PinnedStepGuard {
  const mark = guard.mark();
  return { mark: () => mark, confirmSteps: (m, what) => guard.confirmSteps(m, what), pinned: true };
}

/**
 * The keys of the steps `names` of the work `scope` (an intake's job id, a message's key): each
 * `<scope>:<name>`, typed by name, so a step is named in one place and read and written by the same
 * key (`stepKeys(ctx.jobId, 'experts', 'experts-told')['experts-told']`).
 */
export function stepKeys<const N extends string>(scope: string, ...names: N[]): Record<N, string> {
  return Object.fromEntries(names.map((n) => [n, `${scope}:${n}`])) as Record<N, string>;
}

/**
 * Before an irreversible step: the mark just saved in `steps` is on the Redis replicas
 * (`steps.confirm`), so a retry after a failover finds it. When it can't be confirmed, `undo`
 * takes the mark back (the step was not taken; best effort, a failure is one warning: a mark that
 * outlives the failover reads as "may have happened", never as "do it again"), and the error is
 * thrown for the caller to try again later.
 * @throws UnreplicatedStepError from `steps.confirm`.
 */
export async function confirmStep(
  steps: Steps,
  what: string,
  undo: Record<string, unknown>,
  logger: Logger,
): Promise<void> {
  try {
    await steps.confirm?.(what);
  } catch (err) {
    await steps.save(undo).catch((saveErr: unknown) => {
      logger.warn({ err: saveErr, step: what }, 'could not take back a step mark that was not confirmed');
    });
    throw err;
  }
}

/** Event type of the metadata the bot puts on messages it must post at most once (Slack: message metadata). */
export const POST_ONCE_EVENT_TYPE = 'docs_agent_post';

/** Web API methods {@link postOnce} uses. */
export type PostOnceClient = {
  chat: Pick<WebClient['chat'], 'postMessage'>;
  conversations: Pick<WebClient['conversations'], 'history' | 'replies'>;
};

/** Where and what {@link postOnce} posts. */
interface PostOnceMessage {
  channel: string;
  thread_ts?: string;
  text: string;
  blocks?: KnownBlock[];
  /** Unique per message across retries (e.g. `<intake id>:status`). */
  key: string;
  /** Epoch ms no later than the first try (the search looks at messages from a minute before). */
  since: number;
  /**
   * Look for the message by its metadata before a first post too: for a message whose steps may have
   * been lost with Redis while the message stayed in Slack (one history read per post).
   */
  lookFirst?: boolean;
}

/** The steps {@link postOnce} saves for the message `key`: `<key>:posting` before the post, `<key>:ts` after. */
export const postOnceKeys = (key: string): Record<'ts' | 'posting', string> => stepKeys(key, 'ts', 'posting');

/**
 * Posts a message at most once across retries of resumable work, with `unfurl_links` and
 * `unfurl_media` false (nothing in it previews). Before posting it saves
 * `<key>:posting` (and confirms it is on the Redis replicas: `steps.confirm`), and puts `{ key }`
 * in the message's metadata; after posting it saves the ts. A retry that finds `posting` without a
 * ts (the process died in between, or a failover lost the ts) looks for the message by its
 * metadata (conversations.history, or .replies in a thread, with `include_all_metadata`; scopes
 * `*:history`) before posting again: the message itself is the second record. On the last try a
 * post that failed without Slack refusing it is looked for the same way before the error is thrown.
 *
 * @returns the message's ts.
 * @throws the Slack error of the post (the caller decides whether it is worth retrying), a Redis
 *   error from `steps.save`, or UnreplicatedStepError from `steps.confirm` (nothing was posted).
 */
export async function postOnce(slack: PostOnceClient, steps: Steps, m: PostOnceMessage): Promise<string> {
  const { ts: tsKey, posting: postingKey } = postOnceKeys(m.key);
  const saved = steps.progress[tsKey];
  if (typeof saved === 'string') return saved;
  if (steps.progress[postingKey] || m.lookFirst) {
    const found = await findPosted(slack, m);
    if (found) {
      await steps.save({ [tsKey]: found });
      return found;
    }
  }
  await steps.save({ [postingKey]: true });
  await steps.confirm?.(m.key);
  const ts = await postOrFind(slack, steps, m);
  await steps.save({ [tsKey]: ts });
  return ts;
}

/**
 * Posts `m` (with `{ key }` in its metadata) and returns its ts. On the last try, a post that failed
 * other than by Slack's refusal (`ok: false`: a timeout, a network error, a 5xx, which may come after
 * Slack delivered it) is looked for by its metadata before the error is thrown: no retry comes to
 * find it, and a caller would otherwise call a message that is in the channel "not posted".
 * @throws the post's error when it was refused, or is not found.
 */
async function postOrFind(slack: PostOnceClient, steps: Steps, m: PostOnceMessage): Promise<string> {
  try {
    const posted = await slack.chat.postMessage({
      channel: m.channel,
      ...(m.thread_ts ? { thread_ts: m.thread_ts } : {}),
      text: m.text,
      ...(m.blocks ? { blocks: m.blocks } : {}),
      // No previews of anything in a message the bot posts (quoted text is data; Slack's chat.postMessage args).
      unfurl_links: false,
      unfurl_media: false,
      metadata: { event_type: POST_ONCE_EVENT_TYPE, event_payload: { key: m.key } },
    });
    return String(posted.ts);
  } catch (err) {
    if (!steps.finalAttempt || hasCode(err, ErrorCode.PlatformError)) throw err;
    // The lookup failing too leaves the post's own error to throw: it is what the caller must hear.
    const found = await findPosted(slack, m).catch(() => undefined);
    if (found === undefined) throw err;
    return found;
  }
}

async function findPosted(slack: PostOnceClient, m: PostOnceMessage): Promise<string | undefined> {
  const oldest = String(Math.floor(m.since / 1000) - 60);
  const page = m.thread_ts
    ? await slack.conversations.replies({
        channel: m.channel,
        ts: m.thread_ts,
        oldest,
        include_all_metadata: true,
        limit: 200,
      })
    : await slack.conversations.history({ channel: m.channel, oldest, include_all_metadata: true, limit: 200 });
  const hit = (page.messages ?? []).find((msg) => {
    const meta = (msg as { metadata?: { event_type?: string; event_payload?: { key?: unknown } } }).metadata;
    return meta?.event_type === POST_ONCE_EVENT_TYPE && meta.event_payload?.key === m.key;
  });
  return hit?.ts;
}
