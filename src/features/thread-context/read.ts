import type { WebClient } from '@slack/web-api';
import { slackErrorCode } from '../../platform/slack/errors.js';
import type { BotSelf, ThreadMessage } from './format.js';

/** The Web API methods a thread is read with (scopes: *:history). */
export interface ThreadReadSlack {
  conversations: Pick<WebClient['conversations'], 'replies'>;
  auth: Pick<WebClient['auth'], 'test'>;
}

/** Slack errors meaning the bot cannot read a conversation (not a member, or it can't see it at all). */
const NO_ACCESS = new Set(['not_in_channel', 'channel_not_found', 'missing_scope', 'access_denied']);
/** Pages read at most per thread (200 × 100 = 20,000 messages). */
const MAX_PAGES = 100;

/** Thrown by {@link readThread} when the bot cannot read the conversation, or the thread is gone. */
export class ThreadUnreadableError extends Error {
  constructor(
    readonly reason: 'bot_cannot_read' | 'not_found',
    readonly code: string,
  ) {
    super(`cannot read the thread: ${code}`);
    this.name = 'ThreadUnreadableError';
  }
}

/** Turns the Slack errors that mean "no access" or "gone" into {@link ThreadUnreadableError}; rethrows the rest. */
export function unreadable(err: unknown): never {
  const code = slackErrorCode(err) ?? '';
  if (NO_ACCESS.has(code)) throw new ThreadUnreadableError('bot_cannot_read', code);
  if (code === 'thread_not_found' || code === 'message_not_found') throw new ThreadUnreadableError('not_found', code);
  throw err;
}

/**
 * Every message of the thread that `ts` belongs to (its root first, then the replies, oldest
 * first), all pages of `conversations.replies`. A message without replies comes back alone.
 * @throws {ThreadUnreadableError} when the bot can't read the conversation or the thread is gone;
 *   other Slack errors as thrown (transient ones are worth retrying).
 */
export async function readThread(deps: { slack: Pick<ThreadReadSlack, 'conversations'>; pageSize?: number }, channel: string, ts: string): Promise<ThreadMessage[]> {
  const limit = deps.pageSize ?? 200;
  const all: ThreadMessage[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < MAX_PAGES; i += 1) {
    const res = await deps.slack.conversations.replies({ channel, ts, limit, ...(cursor ? { cursor } : {}) }).catch(unreadable);
    all.push(...((res.messages ?? []) as ThreadMessage[]));
    cursor = res.has_more ? res.response_metadata?.next_cursor || undefined : undefined;
    if (!cursor) break;
  }
  return all;
}

const selves = new WeakMap<object, Promise<BotSelf>>();

/** The bot's own user id and bot id (auth.test), asked once per client. */
export function botSelf(slack: Pick<ThreadReadSlack, 'auth'>): Promise<BotSelf> {
  let self = selves.get(slack);
  if (!self) {
    self = slack.auth.test().then((r) => ({ ...(r.user_id ? { userId: r.user_id } : {}), ...(r.bot_id ? { botId: r.bot_id } : {}) }));
    // Not cached when auth.test failed: the next caller asks again (the caller sees the error).
    self.catch(() => selves.delete(slack));
    selves.set(slack, self);
  }
  return self;
}
