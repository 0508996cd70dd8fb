/**
 * The steps of an answer ({@link answerSteps}) and how it ends: its last write, saved before it is
 * made (a retry makes it again), and the end of an answer a crash cut (a retry stops it with the
 * cut-off notice, never asks again).
 */
import type { KnownBlock } from '@slack/types';
import { slackErrorCode } from '../../../platform/slack/errors.js';
import { escapeReaderText } from '../../../platform/slack/markup.js';
import { postOnce, postOnceKeys, stepKeys, type Steps } from '../../../platform/steps.js';
import { CUT_OFF_TEXT } from '../blocks.js';
import type { AnswerTarget, WriterDeps } from './types.js';

/**
 * The steps of one answer (`./stream.ts`, `./final.ts`), each `<target.key>:<name>`: `streaming`
 * (saved before chat.startStream), `stream` (its ts), `final` (the final write, saved before it is
 * made), and the keys of the messages posted at most once (postOnce): `post` (the posted
 * fallback), `cut` (the cut-off notice of a retry), `rest` (the rest of a stream Slack ended).
 */
export function answerSteps(
  target: Pick<AnswerTarget, 'key'>,
): Record<'streaming' | 'stream' | 'final' | 'post' | 'cut' | 'rest', string> {
  return stepKeys(target.key, 'streaming', 'stream', 'final', 'post', 'cut', 'rest');
}

/**
 * The last write of an answer (the stream's stop, the posted answer's final edit, or the one
 * message of an answer with no text), saved in the answer's steps before it is made: a retry after
 * a crash makes the same write again instead of taking the answer for a cut one. Each write is
 * safe to repeat: a stop Slack already took is recognised by the answer's metadata, an edit sets
 * the same content, a post is posted once.
 */
export type FinalWrite =
  | { kind: 'stop'; ts: string; text: string; blocks: KnownBlock[] }
  | { kind: 'update'; ts: string; text: string; blocks: KnownBlock[] }
  | { kind: 'post'; text: string; blocks: KnownBlock[]; key: string };

/** Event type of the metadata on a finished streamed answer (Slack: message metadata). */
const ANSWER_EVENT_TYPE = 'docs_agent_answer';

/** Slack: `markdown_text` "Limit this field to 12,000 characters" (per call); the markdown block holds 12,000 too. */
export const MARKDOWN_CALL_LIMIT = 12_000;

/** Streams end with these when the app can no longer write to them (stopped by the reader, expired, gone). */
const STREAM_OVER = new Set(['message_not_in_streaming_state', 'stopped_by_user', 'message_not_found']);

/**
 * Plain words of the (filtered) Markdown for a notification's fallback `text`: Markdown's escapes
 * and formatting characters dropped, then shown by the rules of reader text (`escapeReaderText`:
 * one line of at most 200 characters, no mention, link, address or domain Slack could parse), so a
 * URL the answer showed as text or code does not become a link here.
 */
export function fallbackText(markdown: string): string {
  const plain = markdown.replace(/\\([!-/:-@[-`{-~])/g, '$1').replace(/[*_`#>~]/g, '');
  return escapeReaderText(plain, 200) || 'The docs answer';
}

/** A message of Markdown `text` (a `markdown` block) followed by `blocks`. */
export function markdownMessage(text: string, blocks: KnownBlock[]): { text: string; blocks: KnownBlock[] } {
  const md = text.slice(0, MARKDOWN_CALL_LIMIT);
  return { text: fallbackText(md), blocks: [...(md ? [{ type: 'markdown' as const, text: md }] : []), ...blocks] };
}

/**
 * Makes the final write `w` (saved before, in the answer's steps: the writer's `final`, or a retry's
 * {@link endCutAnswer}). A stream Slack already ended (the reader pressed Stop, or it expired) gets
 * the rest as a reply in the thread, unless the stream carries the answer's metadata (an earlier try
 * stopped it). @throws Slack errors other than a stream already over; Redis errors.
 */
export async function replayFinal(deps: WriterDeps, target: AnswerTarget, steps: Steps, w: FinalWrite): Promise<void> {
  const post = (key: string) =>
    postOnce(deps.slack, steps, {
      channel: target.channel,
      thread_ts: target.threadTs,
      ...markdownMessage(w.text, w.blocks),
      key,
      since: target.since,
    });
  if (w.kind === 'post') return void (await post(w.key));
  if (w.kind === 'update') {
    await deps.slack.chat.update({ channel: target.channel, ts: w.ts, ...markdownMessage(w.text, w.blocks) });
    return;
  }
  const metadata = { event_type: ANSWER_EVENT_TYPE, event_payload: { key: target.key } };
  try {
    const text = w.text.slice(0, MARKDOWN_CALL_LIMIT);
    await deps.slack.chat.stopStream({
      channel: target.channel,
      ts: w.ts,
      ...(text ? { markdown_text: text } : {}),
      blocks: w.blocks,
      metadata,
    });
  } catch (err) {
    if (!STREAM_OVER.has(slackErrorCode(err) ?? '')) throw err;
    if (await finished(deps, target, w.ts)) return;
    deps.logger.warn(
      { slackError: slackErrorCode(err) },
      'the answer stream was already over; posting the rest in the thread',
    );
    await post(answerSteps(target).rest);
  }
}

/** Whether the streamed message `ts` carries the answer's metadata (its stop went through). */
async function finished(deps: WriterDeps, target: AnswerTarget, ts: string): Promise<boolean> {
  const page = await deps.slack.conversations.replies({
    channel: target.channel,
    ts: target.threadTs,
    oldest: ts,
    inclusive: true,
    include_all_metadata: true,
    limit: 1,
  });
  const msg = (page.messages ?? []).find((m) => m.ts === ts) as { metadata?: { event_type?: string } } | undefined;
  return msg?.metadata?.event_type === ANSWER_EVENT_TYPE;
}

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
 * An answer whose final write was saved (the writer's `final`) was not cut: the write is made again (each is
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
  const keys = answerSteps(target);
  const final = p[keys.final] as FinalWrite | undefined;
  if (final) {
    await replayFinal(deps, target, steps, final);
    return 'finished';
  }
  let ts = typeof p[keys.stream] === 'string' ? (p[keys.stream] as string) : undefined;
  if (!ts && p[keys.streaming] === true) ts = await findStreamed(deps, target);
  if (ts) {
    try {
      await deps.slack.chat.stopStream({ channel: target.channel, ts, markdown_text: `\n\n${CUT_OFF_TEXT}` });
      deps.logger.warn({ channel: target.channel }, 'ended an answer cut off by a crash with a notice');
      return 'cut';
    } catch (err) {
      const code = slackErrorCode(err);
      if (!STREAM_OVER.has(code ?? '')) throw err;
    }
  } else if (!p[postOnceKeys(keys.post).posting]) {
    return 'none';
  }
  await postOnce(deps.slack, steps, {
    channel: target.channel,
    thread_ts: target.threadTs,
    text: CUT_OFF_TEXT,
    key: keys.cut,
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
