import type { KnownBlock } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../../platform/logger.js';
import { classifySlackError, slackErrorCode } from '../../platform/slack/errors.js';
import { postOnce, type Steps } from '../../platform/slack/post-once.js';

/**
 * The one writer of an answer message. It streams the answer into its thread with Slack's chat
 * streaming (chat.startStream at the first text, chat.appendStream in batches, chat.stopStream
 * with the sources and buttons), and where Slack refuses streaming (an `unknown_method`, a
 * channel that does not allow it, any error of chat.startStream) it posts the answer instead and
 * edits it within the workspace's edit budget. The stream is always stopped: on success, on an
 * API error, on a cut-off (with a notice) and at shutdown (the caller aborts the answer and
 * finishes it). Markdown goes to Slack as it is: streamed `markdown_text` and the `markdown`
 * block both take standard Markdown (Slack: "markdown block", chat.startStream "markdown_text").
 */

/** Slack: `markdown_text` "Limit this field to 12,000 characters" (per call); the markdown block holds 12,000 too. */
export const MARKDOWN_CALL_LIMIT = 12_000;
/** Most answer characters shown: room for a notice within one markdown block. */
export const ANSWER_MAX_CHARS = 11_000;
/**
 * Fewest characters per chat.appendStream: a 2,000-character answer then costs at most 15 calls
 * (start + ⌊2000 / 160⌋ = 12 appends + stop = 14).
 */
export const MIN_APPEND_CHARS = 160;
/** In the posted fallback, at most one edit per this many ms (chat.update is Tier 3). */
export const FALLBACK_EDIT_MS = 1_500;
/** The final edit of the fallback waits at most this long for the edit budget, in ms; then it edits anyway. */
export const FINAL_EDIT_WAIT_MS = 15_000;

/** The Web API methods the writer uses. */
export type StreamSlack = {
  chat: Pick<WebClient['chat'], 'startStream' | 'appendStream' | 'stopStream' | 'postMessage' | 'update'>;
  conversations: Pick<WebClient['conversations'], 'history' | 'replies'>;
};

/** What the writer needs. */
export interface WriterDeps {
  slack: StreamSlack;
  /** The workspace's chat.update budget (agent-jobs' EditBudget: one budget for every edit of the bot). */
  budget: { take(teamId: string): Promise<{ ok: true } | { ok: false; retryMs: number }> };
  logger: Logger;
  /** Clock in epoch ms. */
  now: () => number;
  /** Waits `ms` (tests pass a fake). @defaultValue setTimeout */
  sleep?: (ms: number) => Promise<void>;
}

/** Where an answer goes: its thread, who reads it (Slack: the recipient outside DMs), and its post-once key. */
export interface AnswerTarget {
  teamId: string;
  channel: string;
  threadTs: string;
  /** The asker: chat.startStream's `recipient_user_id` / `recipient_team_id`. */
  recipientUserId: string;
  /** Unique per answer (e.g. `<intake id>:answer`): keys the steps and the messages posted at most once. */
  key: string;
  /** Epoch ms no later than the question (postOnce's `since`). */
  since: number;
}

/** The end of an answer: blocks after the text (sources, buttons) and a notice after it, if any. */
export interface AnswerEnd {
  blocks: KnownBlock[];
  notice?: string;
}

/** Event type of the metadata on a finished streamed answer (Slack: message metadata). */
export const ANSWER_EVENT_TYPE = 'docs_agent_answer';

/** Streams end with these when the app can no longer write to them (stopped by the reader, expired, gone). */
const STREAM_OVER = new Set(['message_not_in_streaming_state', 'stopped_by_user', 'message_not_found']);

const sleeper = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Plain words of Markdown for a notification's fallback `text` (first 200 characters). */
function fallbackText(markdown: string): string {
  const plain = markdown
    .replace(/[*_`#>~]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  return (plain.length > 200 ? `${plain.slice(0, 199)}…` : plain) || 'The docs answer';
}

/** Pieces of `text` of at most `size` characters (concatenated, `text`). */
function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/**
 * Writes one answer (see the module doc). Steps saved in `steps` under `target.key`: `:streaming`
 * before chat.startStream, `:stream` its ts, or the posted fallback's (postOnce `:post`). Calls are
 * made one at a time, in order; `append` resolves once Slack has what it must have now.
 */
export class AnswerWriter {
  private mode: 'none' | 'stream' | 'post' = 'none';
  private ts: string | undefined;
  private pending = '';
  private shown = '';
  private lastEdit = 0;
  /** Epoch ms when the first text reached Slack. */
  firstTextAt: number | undefined;
  /** True once text beyond {@link ANSWER_MAX_CHARS} was dropped. */
  truncated = false;

  constructor(
    private readonly deps: WriterDeps,
    private readonly target: AnswerTarget,
    private readonly steps: Steps,
  ) {}

  /** Characters of answer text taken so far (shown or about to be). */
  get chars(): number {
    return this.shown.length + this.pending.length;
  }

  /** True once a message of the answer exists in Slack. */
  get started(): boolean {
    return this.mode !== 'none';
  }

  /**
   * Adds answer text: the first text starts the message at once; later text goes in batches of at
   * least {@link MIN_APPEND_CHARS} (streaming) or one edit per {@link FALLBACK_EDIT_MS} (fallback).
   * @throws Slack errors other than a refused stream start (the caller ends the answer).
   */
  async append(text: string): Promise<void> {
    const room = ANSWER_MAX_CHARS - this.chars;
    if (text.length > room) this.truncated = true;
    const taken = text.slice(0, Math.max(0, room));
    if (!taken) return;
    this.pending += taken;
    if (this.mode === 'none') return this.start();
    if (this.mode === 'stream' && this.pending.length >= MIN_APPEND_CHARS) return this.flushStream();
    if (this.mode === 'post' && this.deps.now() - this.lastEdit >= FALLBACK_EDIT_MS) await this.editPost(false);
  }

  /**
   * Ends the answer: stops the stream with the rest of the text, the notice and `end.blocks`; or
   * edits the posted answer to its final state; or, when no text was ever shown, posts the notice
   * and blocks as one message. Never leaves a stream open: a stream Slack already ended gets the
   * rest as a reply in the thread.
   * @throws Slack errors (the intake retries; a retry resumes from the saved steps).
   */
  async finish(end: AnswerEnd): Promise<void> {
    if (end.notice) this.pending += `${this.chars > 0 ? '\n\n' : ''}${end.notice}`;
    if (this.mode === 'none') return void (await this.postRest(end.blocks, `${this.target.key}:post`));
    if (this.mode === 'post') return this.editPost(true, end.blocks);
    const rest = this.pending;
    this.pending = '';
    const parts = pieces(rest, MARKDOWN_CALL_LIMIT);
    const last = parts.pop();
    try {
      for (const part of parts) await this.call('appendStream', { markdown_text: part });
      // The metadata marks a finished answer: a retry after a crash never takes it for a cut one (./resume.ts).
      const metadata = { event_type: ANSWER_EVENT_TYPE, event_payload: { key: this.target.key } };
      await this.deps.slack.chat.stopStream({
        channel: this.target.channel,
        ts: this.ts ?? '',
        ...(last ? { markdown_text: last } : {}),
        blocks: end.blocks,
        metadata,
      });
    } catch (err) {
      if (!STREAM_OVER.has(slackErrorCode(err) ?? '')) throw err;
      this.deps.logger.warn(
        { slackError: slackErrorCode(err) },
        'the answer stream was already over; posting the rest in the thread',
      );
      this.pending = rest;
      await this.postRest(end.blocks, `${this.target.key}:rest`);
    }
  }

  private async start(): Promise<void> {
    const t = this.target;
    await this.steps.save({ [`${t.key}:streaming`]: true });
    await this.steps.confirm?.(`${t.key}:streaming`);
    const text = this.pending;
    try {
      const res = await this.deps.slack.chat.startStream({
        channel: t.channel,
        thread_ts: t.threadTs,
        recipient_user_id: t.recipientUserId,
        recipient_team_id: t.teamId,
        markdown_text: text.slice(0, MARKDOWN_CALL_LIMIT),
      });
      this.ts = String(res.ts);
      this.mode = 'stream';
      this.moved(text.slice(0, MARKDOWN_CALL_LIMIT));
      await this.steps.save({ [`${t.key}:stream`]: this.ts });
      if (this.pending.length >= MIN_APPEND_CHARS) await this.flushStream();
    } catch (err) {
      const info = classifySlackError(err);
      this.deps.logger.info({ slackError: info.code }, 'Slack refused to stream the answer; posting it instead');
      await this.steps.save({ [`${t.key}:streaming`]: false });
      this.mode = 'post';
      await this.editPost(false);
    }
  }

  private async flushStream(): Promise<void> {
    while (this.pending.length >= MIN_APPEND_CHARS) {
      const part = this.pending.slice(0, MARKDOWN_CALL_LIMIT);
      await this.call('appendStream', { markdown_text: part });
      this.moved(part);
    }
  }

  private async call(method: 'appendStream', args: { markdown_text: string }): Promise<void> {
    await this.deps.slack.chat[method]({ channel: this.target.channel, ts: this.ts ?? '', ...args });
  }

  /** `part` (the head of `pending`) is now in Slack. */
  private moved(part: string): void {
    this.shown += part;
    this.pending = this.pending.slice(part.length);
    this.firstTextAt ??= this.deps.now();
  }

  /** The posted fallback: posts it (once) or edits it; the final edit waits for the budget, then edits anyway. */
  private async editPost(final: boolean, blocks: KnownBlock[] = []): Promise<void> {
    const t = this.target;
    const text = this.shown + this.pending;
    const message = {
      text: fallbackText(text),
      blocks: [...(text ? [{ type: 'markdown' as const, text }] : []), ...blocks],
    };
    if (!this.ts) {
      this.ts = await postOnce(this.deps.slack, this.steps, {
        channel: t.channel,
        thread_ts: t.threadTs,
        ...message,
        key: `${t.key}:post`,
        since: t.since,
      });
    } else {
      const grant = await this.deps.budget.take(t.teamId).catch(() => ({ ok: true as const }));
      if (!grant.ok && !final) return;
      if (!grant.ok) await (this.deps.sleep ?? sleeper)(Math.min(grant.retryMs, FINAL_EDIT_WAIT_MS));
      await this.deps.slack.chat.update({ channel: t.channel, ts: this.ts, ...message });
    }
    this.lastEdit = this.deps.now();
    this.moved(this.pending);
  }

  /** Posts what is left (text and blocks) as a message of its own in the thread, once. */
  private async postRest(blocks: KnownBlock[], key: string): Promise<void> {
    const t = this.target;
    const text = this.pending.slice(0, MARKDOWN_CALL_LIMIT);
    const message = {
      text: fallbackText(text),
      blocks: [...(text ? [{ type: 'markdown' as const, text }] : []), ...blocks],
    };
    await postOnce(this.deps.slack, this.steps, {
      channel: t.channel,
      thread_ts: t.threadTs,
      ...message,
      key,
      since: t.since,
    });
    this.moved(this.pending);
  }
}
