import { slackErrorCode } from '../../platform/slack/errors.js';
import { postOnce } from '../../platform/slack/post-once.js';
import type { Steps } from '../../platform/steps.js';
import { CUT_OFF_TEXT } from './blocks.js';
import { finalKey, replayFinal, STREAM_OVER, type FinalWrite } from './final.js';
import type { AnswerTarget, WriterDeps } from './stream.js';

/**
 * A retry of a question whose earlier try died mid-answer (the process was killed, Redis or Slack
 * failed between two calls): the answer in Slack is cut, so it is ended with the cut-off notice,
 * never asked again (no second answer, no second credit). What the writer saved tells where it got:
 * - a stream's ts (`<key>:stream`): the stream is stopped with the notice; a stream Slack already
 *   ended (it stops taking appends about 5 minutes after it started, or the reader pressed Stop)
 *   gets the notice as a reply;
 * - `<key>:streaming` without a ts (killed between chat.startStream and saving its ts): the bot's
 *   newest reply in the thread since the question, if any, is taken for it; none means nothing was
 *   shown, and the question is asked as if for the first time;
 * - a posted fallback (`<key>:post:posting`, postOnce's mark): the notice as a reply.
 * An answer whose final write was saved (`./final.ts`) was not cut: the write is made again (each is
 * safe to repeat) and the answer is finished.
 * @returns `finished` (its final write made again), `cut` (ended with the notice), or `none` (nothing
 *   was shown yet: ask as if for the first time).
 * @throws Slack errors other than a stream that is already over; Redis errors.
 */
export async function endCutAnswer(
  deps: WriterDeps,
  target: AnswerTarget,
  steps: Steps,
): Promise<'finished' | 'cut' | 'none'> {
  const p = steps.progress;
  const key = target.key;
  const final = p[finalKey(target)] as FinalWrite | undefined;
  if (final) {
    await replayFinal(deps, target, steps, final);
    return 'finished';
  }
  let ts = typeof p[`${key}:stream`] === 'string' ? (p[`${key}:stream`] as string) : undefined;
  if (!ts && p[`${key}:streaming`] === true) ts = await findStreamed(deps, target);
  if (ts) {
    try {
      await deps.slack.chat.stopStream({ channel: target.channel, ts, markdown_text: `\n\n${CUT_OFF_TEXT}` });
      deps.logger.warn({ channel: target.channel }, 'ended an answer cut off by a crash with a notice');
      return 'cut';
    } catch (err) {
      const code = slackErrorCode(err);
      if (!STREAM_OVER.has(code ?? '')) throw err;
    }
  } else if (!p[`${key}:post:posting`]) {
    return 'none';
  }
  await postOnce(deps.slack, steps, {
    channel: target.channel,
    thread_ts: target.threadTs,
    text: CUT_OFF_TEXT,
    key: `${key}:cut`,
    since: target.since,
  });
  deps.logger.warn({ channel: target.channel }, 'posted the cut-off notice of an answer cut by a crash');
  return 'cut';
}

/** Most pages of the thread read looking for a cut answer (200 replies each). */
export const FIND_STREAMED_MAX_PAGES = 20;

/**
 * The bot's newest message in the thread since the question that is not one posted once (those
 * carry metadata): Slack lists replies oldest first, so every page since the question is read, at
 * most {@link FIND_STREAMED_MAX_PAGES} (4,000 replies; past them, the newest found so far).
 */
async function findStreamed(deps: WriterDeps, target: AnswerTarget): Promise<string | undefined> {
  const oldest = String(Math.floor(target.since / 1000) - 1);
  let found: string | undefined;
  let cursor: string | undefined;
  for (let pages = 0; pages < FIND_STREAMED_MAX_PAGES; pages++) {
    const page = await deps.slack.conversations.replies({
      channel: target.channel,
      ts: target.threadTs,
      oldest,
      include_all_metadata: true,
      limit: 200,
      ...(cursor ? { cursor } : {}),
    });
    const mine = (page.messages ?? []).filter(
      (m) => m.bot_id && m.ts !== target.threadTs && !(m as { metadata?: unknown }).metadata,
    );
    found = mine.at(-1)?.ts ?? found;
    cursor = page.response_metadata?.next_cursor || undefined;
    if (!cursor) break;
  }
  return found;
}
