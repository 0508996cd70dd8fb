import type { KnownBlock } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../logger.js';

/** Event type of the metadata the bot puts on messages it must post at most once (Slack: message metadata). */
export const POST_ONCE_EVENT_TYPE = 'docs_agent_post';

/** Progress of resumable work (an intake's): steps saved durably before the step they guard. */
export interface Steps {
  progress: Record<string, unknown>;
  /** Saves steps durably (merged into `progress`). @throws on Redis errors. */
  save(patch: Record<string, unknown>): Promise<void>;
  /** True on the last try: report instead of throwing for another. */
  finalAttempt: boolean;
  /**
   * Before an irreversible step (`what` names it in logs): the steps saved so far would survive a
   * Redis failover (on the replicas, REDIS_WAIT_REPLICAS), so a retry after one cannot repeat the
   * step. Absent: nothing to confirm (no replication, or steps kept in memory).
   * @throws UnreplicatedStepError when they can't be confirmed: act later, not now.
   */
  confirm?(what: string): Promise<void>;
}

/** Steps that live only in memory: a single try (tests, and callers with nothing to resume). */
export function memorySteps(): Steps {
  const progress: Record<string, unknown> = {};
  return { progress, save: async (patch) => void Object.assign(progress, patch), finalAttempt: true };
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

/** Web API methods {@link postOnce} uses. */
export type PostOnceClient = {
  chat: Pick<WebClient['chat'], 'postMessage'>;
  conversations: Pick<WebClient['conversations'], 'history' | 'replies'>;
};

/** Where and what {@link postOnce} posts. */
export interface PostOnceMessage {
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

/**
 * Posts a message at most once across retries of resumable work. Before posting it saves
 * `<key>:posting` (and confirms it is on the Redis replicas: `steps.confirm`), and puts `{ key }`
 * in the message's metadata; after posting it saves the ts. A retry that finds `posting` without a
 * ts (the process died in between, or a failover lost the ts) looks for the message by its
 * metadata (conversations.history, or .replies in a thread, with `include_all_metadata`; scopes
 * `*:history`) before posting again: the message itself is the second record.
 *
 * @returns the message's ts.
 * @throws the Slack error of the post (the caller decides whether it is worth retrying), a Redis
 *   error from `steps.save`, or UnreplicatedStepError from `steps.confirm` (nothing was posted).
 */
export async function postOnce(slack: PostOnceClient, steps: Steps, m: PostOnceMessage): Promise<string> {
  const tsKey = `${m.key}:ts`;
  const postingKey = `${m.key}:posting`;
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
  const posted = await slack.chat.postMessage({
    channel: m.channel,
    ...(m.thread_ts ? { thread_ts: m.thread_ts } : {}),
    text: m.text,
    ...(m.blocks ? { blocks: m.blocks } : {}),
    unfurl_links: false,
    metadata: { event_type: POST_ONCE_EVENT_TYPE, event_payload: { key: m.key } },
  });
  const ts = String(posted.ts);
  await steps.save({ [tsKey]: ts });
  return ts;
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
