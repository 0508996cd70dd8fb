import type { KnownBlock } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import { stepKeys, type Steps } from '../steps.js';

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
 * `*:history`) before posting again: the message itself is the second record.
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
