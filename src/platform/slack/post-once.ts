import type { KnownBlock } from '@slack/types';
import type { WebClient } from '@slack/web-api';

/** Event type of the metadata the bot puts on messages it must post at most once (Slack: message metadata). */
export const POST_ONCE_EVENT_TYPE = 'docs_agent_post';

/** Progress of resumable work (an intake's): steps saved durably before the step they guard. */
export interface Steps {
  progress: Record<string, unknown>;
  /** Saves steps durably (merged into `progress`). @throws on Redis errors. */
  save(patch: Record<string, unknown>): Promise<void>;
  /** True on the last try: report instead of throwing for another. */
  finalAttempt: boolean;
}

/** Steps that live only in memory: a single try (tests, and callers with nothing to resume). */
export function memorySteps(): Steps {
  const progress: Record<string, unknown> = {};
  return { progress, save: async (patch) => void Object.assign(progress, patch), finalAttempt: true };
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
}

/**
 * Posts a message at most once across retries of resumable work. Before posting it saves
 * `<key>:posting`, and puts `{ key }` in the message's metadata; after posting it saves the ts. A
 * retry that finds `posting` without a ts (the process died in between) looks for the message by
 * its metadata (conversations.history, or .replies in a thread, with `include_all_metadata`;
 * scopes `*:history`) before posting again.
 *
 * @returns the message's ts.
 * @throws the Slack error of the post (the caller decides whether it is worth retrying), or a
 *   Redis error from `steps.save`.
 */
export async function postOnce(slack: PostOnceClient, steps: Steps, m: PostOnceMessage): Promise<string> {
  const tsKey = `${m.key}:ts`;
  const postingKey = `${m.key}:posting`;
  const saved = steps.progress[tsKey];
  if (typeof saved === 'string') return saved;
  if (steps.progress[postingKey]) {
    const found = await findPosted(slack, m);
    if (found) {
      await steps.save({ [tsKey]: found });
      return found;
    }
  }
  await steps.save({ [postingKey]: true });
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
    ? await slack.conversations.replies({ channel: m.channel, ts: m.thread_ts, oldest, include_all_metadata: true, limit: 200 })
    : await slack.conversations.history({ channel: m.channel, oldest, include_all_metadata: true, limit: 200 });
  const hit = (page.messages ?? []).find((msg) => {
    const meta = (msg as { metadata?: { event_type?: string; event_payload?: { key?: unknown } } }).metadata;
    return meta?.event_type === POST_ONCE_EVENT_TYPE && meta.event_payload?.key === m.key;
  });
  return hit?.ts;
}
