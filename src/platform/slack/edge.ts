import type { App } from '@slack/bolt';
import type { Logger } from '../logger.js';
import { withRequestContext } from '../request-context.js';
import { classifyPayload, requestTeamId, type SlackRequestKind } from './payloads.js';
import { refuseBeforeListeners } from './refuse.js';
import { errorCode, hasCode, PlatformErrorCode } from '../errors.js';
import { RedisErrorCode, redisErrorCode } from '../redis-errors.js';

/** What the transport sends back: an HTTP status (HTTP) or an envelope ack payload (Socket Mode). */
export interface EdgeResponse {
  status: number;
  /** JSON body (an ack payload such as an ephemeral answer or `response_action`), or none. */
  body?: Record<string, unknown>;
}

/**
 * How one request ended, for metrics and tests: `acked`; `unhandled` (no listener took it; answered
 * politely); `malformed` (400, or 413 when too large); `rejected` (signature or timestamp refused:
 * 401); `busy` (the intake could not record it: no ack within the budget, or an event left unacked, 503, so
 * Slack redelivers it); `failed` (a listener threw).
 */
export type EdgeOutcome = 'acked' | 'unhandled' | 'malformed' | 'rejected' | 'busy' | 'failed';

/** What {@link SlackEdge} reports about each request (e.g. to metrics). */
export interface EdgeObserver {
  /** @param kind - undefined when the body could not be classified; `seconds` from receipt to reply. */
  onReply(kind: SlackRequestKind | undefined, outcome: EdgeOutcome, seconds: number): void;
  /** Socket Mode: the WebSocket to Slack opened (Slack's `hello`: true) or closed (false). */
  onSocketState?(connected: boolean): void;
}

/** Options of {@link SlackEdge}. */
export interface SlackEdgeOptions {
  logger: Logger;
  observer?: EdgeObserver;
  /** Slash commands the bot has, named in the answer to an unknown one. */
  commands: readonly string[];
  /** SLACK_API_URL: the answer to an unknown click goes to its response_url only when it is Slack's (refuse.ts). */
  slackApiUrl: string;
  /** Milliseconds a listener may take to ack before the edge answers for it (Slack waits 3 s). @defaultValue 2500 */
  ackTimeoutMs?: number;
}

/**
 * Thrown by an event's listener when its intake could not be recorded: the edge then does not ack
 * the event (HTTP 503; in Socket Mode the envelope stays unacked), so Slack redelivers it. The
 * Redis error is the `cause`.
 */
export class EventNotRecordedError extends Error {
  readonly code = PlatformErrorCode.EventNotRecorded;
  constructor(
    readonly intakeKind: string,
    options: { cause: unknown },
  ) {
    super(`could not record a ${intakeKind} event; not acked, so Slack redelivers it`, options);
    this.name = 'EventNotRecordedError';
  }
}

/** Whether `err` is (or wraps, as Bolt's UnknownError / MultipleListenerError do) an {@link EventNotRecordedError}. */
function notRecorded(err: unknown): boolean {
  if (hasCode(err, PlatformErrorCode.EventNotRecorded)) return true;
  const e = err as { original?: unknown; originals?: unknown[] } | null;
  return Boolean(e && (notRecorded(e.original) || (Array.isArray(e.originals) && e.originals.some(notRecorded))));
}

/** Answer when a request's record could not be written (Redis refused it or was out of reach): nothing was recorded. */
export const BUSY_TEXT = "I couldn't reach my database, so I didn't take that request. Try again in a minute.";

/**
 * Answer when the record may have been kept after all (its write timed out, or no replica
 * acknowledgement could be had): a retry would then start a second job.
 */
export const UNSURE_TEXT =
  "I couldn't confirm that my database kept that request, so I can't tell whether I took it. If nothing shows up here within a minute, try again.";

/**
 * The answer for a request whose record failed with `err`: unsure when it may have been kept after
 * all (the write timed out: {@link RedisErrorCode.CommandTimeout}; or no replica acknowledgement
 * could be had: {@link PlatformErrorCode.IntakeUnconfirmed}), busy otherwise.
 */
export function notRecordedText(err: unknown): string {
  const unsure =
    errorCode(err) === PlatformErrorCode.IntakeUnconfirmed || redisErrorCode(err) === RedisErrorCode.CommandTimeout;
  return unsure ? UNSURE_TEXT : BUSY_TEXT;
}

/**
 * The bot's edge, shared by the HTTP and Socket Mode transports. For each verified request it:
 * refuses bodies that are not JSON objects and payloads without the shape the bot reads (400 and
 * one warning, never a crash or a 5xx); answers `ssl_check` and `url_verification`; hands the rest
 * to Bolt with an `ack` that replies at once for commands and interactions and, for Events API
 * requests, only once the listeners have recorded the event (so an event that could not be
 * recorded is not acknowledged, and Slack retries it); and answers what no listener took with a
 * polite ephemeral message and a warning. Every log line carries the request's id.
 */
export class SlackEdge {
  private app: App | undefined;
  private readonly ackTimeoutMs: number;

  constructor(private readonly opts: SlackEdgeOptions) {
    this.ackTimeoutMs = opts.ackTimeoutMs ?? 2_500;
  }

  /** Connects the Bolt app (Receiver.init). */
  init(app: App): void {
    this.app = app;
  }

  /**
   * Handles one verified request body. `reply` is called exactly once; the promise settles when
   * the listeners are done.
   */
  async handle(
    body: unknown,
    meta: { retryNum?: number; retryReason?: string },
    reply: (r: EdgeResponse) => void,
  ): Promise<void> {
    const started = process.hrtime.bigint();
    let replied = false;
    const send = (kind: SlackRequestKind | undefined, outcome: EdgeOutcome, r: EdgeResponse) => {
      if (replied) return;
      replied = true;
      this.opts.observer?.onReply(kind, outcome, Number(process.hrtime.bigint() - started) / 1e9);
      reply(r);
    };
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      this.opts.logger.warn(
        { bodyType: body === null ? 'null' : Array.isArray(body) ? 'array' : typeof body },
        'refused a request whose body is not a JSON object',
      );
      return send(undefined, 'malformed', { status: 400 });
    }
    const b = body as Record<string, unknown>;
    if (b.ssl_check === '1') return send(undefined, 'acked', { status: 200 });
    if (b.type === 'url_verification' && typeof b.challenge === 'string')
      return send(undefined, 'acked', { status: 200, body: { challenge: b.challenge } });
    const c = classifyPayload(b);
    if (!c.ok) {
      this.opts.logger.warn({ reason: c.reason }, 'refused a malformed Slack request');
      return send(undefined, 'malformed', { status: 400 });
    }
    const teamId = requestTeamId(b);
    await withRequestContext({ requestId: c.requestId, ...(teamId ? { teamId } : {}) }, () =>
      this.dispatch(b, c.kind, meta, (outcome, r) => send(c.kind, outcome, r)),
    );
  }

  private async dispatch(
    body: Record<string, unknown>,
    kind: SlackRequestKind,
    meta: { retryNum?: number; retryReason?: string },
    send: (outcome: EdgeOutcome, r: EdgeResponse) => void,
  ): Promise<void> {
    let acked = false;
    let stored: EdgeResponse | undefined;
    const ack = async (response?: unknown): Promise<void> => {
      if (acked) return;
      acked = true;
      const r = ackReply(response);
      if (kind === 'event') stored = r;
      else send('acked', r);
    };
    const timer = setTimeout(() => {
      if (kind !== 'event' && !acked) {
        this.opts.logger.warn({ kind }, 'no ack within the budget; answered for the listener');
        // The listener is still at work (most likely recording): it may yet record, so no "not taken".
        send('busy', {
          status: 200,
          body: kind === 'command' ? { response_type: 'ephemeral', text: UNSURE_TEXT } : {},
        });
      }
    }, this.ackTimeoutMs);
    try {
      await this.app?.processEvent({
        body,
        ack,
        ...(meta.retryNum !== undefined ? { retryNum: meta.retryNum } : {}),
        ...(meta.retryReason ? { retryReason: meta.retryReason } : {}),
      });
    } catch (err) {
      // Not recorded (the listener said so in one warning): not acked, so Slack redelivers it.
      if (kind === 'event' && notRecorded(err)) return send('busy', { status: 503 });
      this.opts.logger.error({ err }, 'a listener failed');
      return send('failed', failedReply(kind));
    } finally {
      clearTimeout(timer);
    }
    if (stored) return send('acked', stored);
    if (!acked) await this.unhandled(body, kind, send);
  }

  /** A request no listener acked: a command, action or shortcut the bot doesn't know (or an event it ignores). */
  private async unhandled(
    body: Record<string, unknown>,
    kind: SlackRequestKind,
    send: (outcome: EdgeOutcome, r: EdgeResponse) => void,
  ): Promise<void> {
    if (kind === 'event') return send('acked', { status: 200 });
    const what = describe(body, kind);
    this.opts.logger.warn({ kind, what }, 'no listener for this request; answered politely');
    const text =
      kind === 'command'
        ? `I don't know \`${what}\`. I answer ${this.opts.commands.map((c) => `\`${c}\``).join(', ')}.`
        : kind === 'action'
          ? "That button belongs to something I don't do any more; nothing happened."
          : "I don't know that shortcut; nothing happened.";
    const ack = (response?: unknown) => send('unhandled', ackReply(response));
    const isCommand = kind === 'command';
    const failure = 'could not answer an unknown action';
    const how = { isCommand, logger: this.opts.logger, failure, slackApiUrl: this.opts.slackApiUrl };
    await refuseBeforeListeners(ack, body, text, how);
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The reply a listener's `ack(response)` makes: 200 with the object as its body, or a string as `{ text }`. */
function ackReply(response: unknown): EdgeResponse {
  if (isObject(response)) return { status: 200, body: response };
  if (typeof response === 'string' && response) return { status: 200, body: { text: response } };
  return { status: 200 };
}

/** Said to the person when a command's listener failed. */
const FAILED_TEXT = 'Something went wrong on my side; try again in a moment.';

/**
 * The reply when a listener threw: an event is not acked (503, so Slack redelivers it); a command
 * gets an ephemeral apology; anything else an empty 200.
 */
function failedReply(kind: SlackRequestKind): EdgeResponse {
  if (kind === 'event') return { status: 503 };
  return { status: 200, body: kind === 'command' ? { response_type: 'ephemeral', text: FAILED_TEXT } : {} };
}

/** A short, log-safe name of what was asked: the command, action_id or callback_id (≤ 64 chars, no markup). */
function describe(body: Record<string, unknown>, kind: SlackRequestKind): string {
  const raw =
    kind === 'command'
      ? body.command
      : kind === 'action'
        ? (body.actions as { action_id?: unknown }[] | undefined)?.[0]?.action_id
        : ((body.view as { callback_id?: unknown } | undefined)?.callback_id ?? body.callback_id);
  return (typeof raw === 'string' ? raw : '?').replace(/[^\w/.:-]/g, '').slice(0, 64);
}
