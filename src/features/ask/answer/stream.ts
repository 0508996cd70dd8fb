import { answerSteps, markdownMessage, MARKDOWN_CALL_LIMIT, replayFinal, type FinalWrite } from './final.js';
import type { AnswerEnd, AnswerTarget, WriterDeps } from './types.js';
import { classifySlackError, slackErrorCode } from '../../../platform/slack/errors.js';
import { postOnce, type Steps } from '../../../platform/steps.js';

export type { AnswerEnd, AnswerTarget, StreamSlack, WriterDeps } from './types.js';

/**
 * The one writer of an answer message. It streams the answer into its thread with Slack's chat
 * streaming (chat.startStream at the first text, chat.appendStream in batches, chat.stopStream
 * with the sources and buttons), and where Slack refuses streaming (an `unknown_method`, a
 * channel that does not allow it, any error of chat.startStream) it posts the answer instead and
 * edits it a few times ({@link FALLBACK_MAX_EDITS}, then the final edit) within the workspace's
 * edit budget, never before Slack's `Retry-After`. The stream is always stopped: on success, on an
 * API error, on a cut-off (with a notice) and at shutdown (the caller aborts the answer and
 * finishes it). Markdown goes to Slack as it is: streamed `markdown_text` and the `markdown`
 * block both take standard Markdown (Slack: "markdown block", chat.startStream "markdown_text").
 */

/** Most answer characters shown: room for a notice within one markdown block. */
export const ANSWER_MAX_CHARS = 11_000;
/**
 * Fewest characters per chat.appendStream: a 2,000-character answer then costs at most 15 calls
 * (start + ⌊2000 / 160⌋ = 12 appends + stop = 14), and fewer when it arrives faster than
 * {@link APPEND_EVERY_MS} allows.
 */
export const MIN_APPEND_CHARS = 160;
/**
 * At most one chat.appendStream per this many ms per stream: with {@link MIN_APPEND_CHARS}, an
 * answer costs start + at most one append a second + stop, however fast the assistant writes.
 */
const APPEND_EVERY_MS = 1_000;
/** Longest wait for Slack's `Retry-After` on chat.startStream before the answer is posted instead, in ms. */
const START_RETRY_MAX_MS = 10_000;
/**
 * In the posted fallback, the first edit comes this many ms after the post, and the gap doubles
 * after each edit (1.5 s, 3 s, 6 s, 12 s): chat.update is Tier 3, and its budget per workspace
 * (`SLACK_UPDATE_BUDGET_PER_MINUTE`) is the one the jobs' status messages live on.
 */
export const FALLBACK_EDIT_MS = 1_500;
/** Most chat.update calls of the posted fallback before its final edit, however the text arrives. */
export const FALLBACK_MAX_EDITS = 4;
/**
 * The final edit of the fallback waits at most this long in all, in ms: for the longer of the edit
 * budget's wait and Slack's `Retry-After` of an earlier 429. A spent budget is then edited anyway;
 * a `Retry-After` longer than this is not waited (the final edit throws and the intake retries it).
 */
export const FINAL_EDIT_WAIT_MS = 15_000;

/** Waits `ms`, or less when `signal` aborts (shutdown); never rejects. */
function sleeper(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** Slack's Retry-After of a 429 the client rejected (`@slack/web-api`'s rate-limited error), in ms; else undefined. */
function retryAfterMs(err: unknown): number | undefined {
  if (slackErrorCode(err) !== 'ratelimited') return undefined;
  const s = (err as { retryAfter?: unknown }).retryAfter;
  return typeof s === 'number' && s >= 0 ? s * 1000 : 1_000;
}

/**
 * Writes one answer (see the module doc). Steps saved in `steps` ({@link answerSteps}): `streaming`
 * before chat.startStream, `stream` its ts, or the posted fallback's (postOnce `post`). Calls are
 * made one at a time, in order; `append` resolves once Slack has what it must have now.
 */
export class AnswerWriter {
  private mode: 'none' | 'stream' | 'post' = 'none';
  private ts: string | undefined;
  private pending = '';
  private shown = '';
  private lastEdit = 0;
  /** chat.update calls of the posted fallback so far (its final edit not counted). */
  private edits = 0;
  private lastAppend = 0;
  /** Epoch ms until which Slack's `Retry-After` of a 429 on an edit holds (0: none). */
  private rateLimitedUntil = 0;
  /**
   * Epoch ms before which no append (stream) or edit (fallback) is made: Slack's `Retry-After` of a
   * 429, or the edit budget's wait.
   */
  private holdUntil = 0;
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
   * least {@link MIN_APPEND_CHARS} (streaming), or in at most {@link FALLBACK_MAX_EDITS} edits with
   * growing gaps (fallback, see {@link FALLBACK_EDIT_MS}); neither before a 429's `Retry-After`.
   * @throws Slack errors other than a refused stream start (the caller ends the answer).
   */
  async append(text: string): Promise<void> {
    const room = ANSWER_MAX_CHARS - this.chars;
    if (text.length > room) this.truncated = true;
    const taken = text.slice(0, Math.max(0, room));
    if (!taken) return;
    this.pending += taken;
    if (this.mode === 'none') return this.start();
    if (this.mode === 'stream' && this.pending.length >= MIN_APPEND_CHARS && this.appendDue())
      return this.flushStream();
    if (this.mode === 'post' && this.editDue()) await this.editPost();
  }

  /**
   * Ends the answer: stops the stream with the rest of the text, the notice and `end.blocks`; or
   * edits the posted answer to its final state; or, when no text was ever shown, posts the notice
   * and blocks as one message. Never leaves a stream open: a stream Slack already ended gets the
   * rest as a reply in the thread. The posted answer's final edit waits for the longer of the edit
   * budget and Slack's `Retry-After`, at most {@link FINAL_EDIT_WAIT_MS} (shutdown ends the wait); a
   * `Retry-After` longer than that is not waited: the final edit is saved and an Error thrown.
   * @throws Slack errors, and that Error (the intake retries; a retry makes the saved final write).
   */
  async finish(end: AnswerEnd): Promise<void> {
    if (end.notice) this.pending += `${this.chars > 0 ? '\n\n' : ''}${end.notice}`;
    const t = this.target;
    const blocks = end.blocks;
    if (this.mode === 'none') return this.final({ kind: 'post', text: this.pending, blocks, key: answerSteps(t).post });
    if (this.mode === 'stream') return this.final({ kind: 'stop', ts: this.ts ?? '', text: this.pending, blocks });
    // Slack's Retry-After of an earlier 429 first: an edit before it would only be refused again.
    const w: FinalWrite = { kind: 'update', ts: this.ts ?? '', text: this.shown + this.pending, blocks };
    const now = this.deps.now();
    const limited = this.rateLimitedUntil - now;
    if (limited > FINAL_EDIT_WAIT_MS) {
      // Longer than the final edit waits: saved, not made now; the retry makes it (./final.ts' endCutAnswer).
      await this.steps.save({ [answerSteps(t).final]: w });
      throw new Error(`Slack rate limited the answer's edits for ${Math.ceil(limited / 1000)} s more; retrying later`);
    }
    const grant = await this.deps.budget.take(t.teamId).catch((err: unknown) => {
      this.deps.logger.warn({ err }, 'could not read the edit budget; making the final edit anyway');
      return { ok: true as const };
    });
    const wait = Math.max(this.holdUntil - now, grant.ok ? 0 : grant.retryMs);
    if (wait > 0) await this.sleep(Math.min(wait, FINAL_EDIT_WAIT_MS));
    await this.final(w);
  }

  /**
   * Ends a stream this answer can no longer finish (its last try failed): stops it with `notice`,
   * so no stream is left open. Best effort: a failure is one warning (Slack ends an idle stream
   * itself after a few minutes).
   */
  async abandon(notice: string): Promise<void> {
    if (this.mode !== 'stream' || !this.ts) return;
    const t = this.target;
    await this.deps.slack.chat
      .stopStream({ channel: t.channel, ts: this.ts, markdown_text: `${this.pending}\n\n${notice}` })
      .catch((err: unknown) =>
        this.deps.logger.warn({ slackError: slackErrorCode(err) }, 'could not stop an answer stream that failed'),
      );
  }

  /** Waits `ms` on the writer's sleep; shutdown (`deps.signal`) ends the wait early. */
  private sleep(ms: number): Promise<void> {
    return (this.deps.sleep ?? sleeper)(ms, this.deps.signal);
  }

  private async final(w: FinalWrite): Promise<void> {
    await this.steps.save({ [answerSteps(this.target).final]: w }); // first: a retry makes it again
    await replayFinal(this.deps, this.target, this.steps, w);
    this.moved(this.pending);
  }

  private async start(): Promise<void> {
    const t = this.target;
    const keys = answerSteps(t);
    await this.steps.save({ [keys.streaming]: true });
    await this.steps.confirm?.(keys.streaming);
    const text = this.pending;
    const args = {
      channel: t.channel,
      thread_ts: t.threadTs,
      recipient_user_id: t.recipientUserId,
      recipient_team_id: t.teamId,
      markdown_text: text.slice(0, MARKDOWN_CALL_LIMIT),
    };
    try {
      const res = await this.deps.slack.chat.startStream(args).catch(async (err: unknown) => {
        // Slack's 429 (the client rejects it): wait its Retry-After once, then stream or post.
        const ms = retryAfterMs(err);
        if (ms === undefined || ms > START_RETRY_MAX_MS) throw err;
        await this.sleep(ms);
        return this.deps.slack.chat.startStream(args);
      });
      this.ts = String(res.ts);
      this.mode = 'stream';
      this.lastAppend = this.deps.now();
      this.moved(text.slice(0, MARKDOWN_CALL_LIMIT));
      await this.steps.save({ [keys.stream]: this.ts });
    } catch (err) {
      const info = classifySlackError(err);
      this.deps.logger.info({ slackError: info.code }, 'Slack refused to stream the answer; posting it instead');
      await this.steps.save({ [keys.streaming]: false });
      this.mode = 'post';
      await this.editPost();
    }
  }

  /** Whether the posted fallback may be edited now: gaps doubling from {@link FALLBACK_EDIT_MS}, at most {@link FALLBACK_MAX_EDITS}, not before a hold ends. */
  private editDue(): boolean {
    const now = this.deps.now();
    if (this.edits >= FALLBACK_MAX_EDITS || now < this.holdUntil) return false;
    return now - this.lastEdit >= FALLBACK_EDIT_MS * 2 ** this.edits;
  }

  private appendDue(): boolean {
    const now = this.deps.now();
    return now - this.lastAppend >= APPEND_EVERY_MS && now >= this.holdUntil;
  }

  /**
   * Appends the pending text (one call; more only past Slack's per-call limit). A 429 keeps the
   * text pending until its Retry-After (the stop, or a later append, takes it).
   */
  private async flushStream(): Promise<void> {
    while (this.pending.length >= MIN_APPEND_CHARS) {
      const part = this.pending.slice(0, MARKDOWN_CALL_LIMIT);
      try {
        await this.call('appendStream', { markdown_text: part });
      } catch (err) {
        const ms = retryAfterMs(err);
        if (ms === undefined) throw err;
        this.holdUntil = this.rateLimitedUntil = this.deps.now() + ms;
        this.deps.logger.info({ retryAfterMs: ms }, 'Slack rate limited an answer stream; holding its text');
        return;
      }
      this.lastAppend = this.deps.now();
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

  /**
   * The posted fallback: posts it (once) or edits it, when the budget allows (the final edit:
   * {@link finish}). A spent budget or Slack's 429 holds every later edit until the budget's wait or
   * the `Retry-After` has passed; the text stays pending (the next edit, or the final one, shows it).
   */
  private async editPost(): Promise<void> {
    const t = this.target;
    const message = markdownMessage(this.shown + this.pending, []);
    if (!this.ts) {
      const post = { channel: t.channel, thread_ts: t.threadTs, ...message, key: answerSteps(t).post, since: t.since };
      this.ts = await postOnce(this.deps.slack, this.steps, post);
    } else {
      const grant = await this.deps.budget.take(t.teamId).catch((err: unknown) => {
        this.deps.logger.warn({ err }, 'could not read the edit budget; editing the answer anyway');
        return { ok: true as const };
      });
      if (!grant.ok) return void (this.holdUntil = this.deps.now() + grant.retryMs);
      this.edits += 1;
      try {
        await this.deps.slack.chat.update({ channel: t.channel, ts: this.ts, ...message });
      } catch (err) {
        const ms = retryAfterMs(err);
        if (ms === undefined) throw err;
        this.holdUntil = this.rateLimitedUntil = this.deps.now() + ms;
        this.deps.logger.info({ retryAfterMs: ms }, 'Slack rate limited the posted answer; holding its edits');
        return;
      }
    }
    this.lastEdit = this.deps.now();
    this.moved(this.pending);
  }
}
