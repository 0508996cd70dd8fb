import type { KnownBlock } from '@slack/types';
import { slackErrorCode } from '../../platform/slack/errors.js';
import { escapeReaderText } from '../../platform/slack/markup.js';
import { postOnce } from '../../platform/slack/post-once.js';
import type { Steps } from '../../platform/steps.js';
import type { AnswerTarget, WriterDeps } from './writer-types.js';

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
export const ANSWER_EVENT_TYPE = 'docs_agent_answer';

/** Slack: `markdown_text` "Limit this field to 12,000 characters" (per call); the markdown block holds 12,000 too. */
export const MARKDOWN_CALL_LIMIT = 12_000;

/** Streams end with these when the app can no longer write to them (stopped by the reader, expired, gone). */
export const STREAM_OVER = new Set(['message_not_in_streaming_state', 'stopped_by_user', 'message_not_found']);

/** The step key of an answer's final write. */
export const finalKey = (target: AnswerTarget): string => `${target.key}:final`;

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
 * Saves `w` as the answer's final write, then makes it. A stream Slack already ended (the reader
 * pressed Stop, or it expired) gets the rest as a reply in the thread, unless the stream carries the
 * answer's metadata (an earlier try stopped it).
 * @throws Slack errors other than a stream already over; Redis errors.
 */
export async function writeFinal(deps: WriterDeps, target: AnswerTarget, steps: Steps, w: FinalWrite): Promise<void> {
  await steps.save({ [finalKey(target)]: w });
  await replayFinal(deps, target, steps, w);
}

/** Makes the final write `w` (again). See {@link writeFinal}. */
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
    await post(`${target.key}:rest`);
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
