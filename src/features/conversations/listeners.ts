import type { App } from '@slack/bolt';
import type { EventArgs } from '../../platform/slack/listener-args.js';
import type { WebClient } from '@slack/web-api';
import type { Intake } from '../../platform/intake.js';
import { installationTeamId } from '../../platform/request-context.js';
import type { Logger } from '../../platform/logger.js';
import { mentionsUser } from '../../platform/slack/markup.js';
import { tellPrivately } from '../../platform/slack/tell.js';
import { eventNotRecorded, recordEvent } from '../../platform/slack/record-and-ack.js';
import type { IncomingMessage } from '../agent-jobs/index.js';
import { INTAKE, type MessageIntake } from './intake.js';
import { questionChannelMessage } from './question-channel.js';

/** What the message listeners need: they record each message that may be for the bot, and ack. */
export interface ConversationListenerDeps {
  intake: Pick<Intake, 'record'>;
  /** Tells the author of a message that could not be recorded, on Slack's last retry (ephemeral). */
  slack: { chat: Pick<WebClient['chat'], 'postEphemeral'> };
  logger: Logger;
  /** AGENT_PROMPT_MAX_CHARS: a message's recorded text is cut to it. */
  promptMaxChars: number;
  /**
   * The thread indexes: a reply by `user` that mentions no one is recorded only in a thread the bot
   * owns (a job's, or an answer's that takes that person's replies); truthy when it does.
   * @throws the Redis error.
   */
  threads: { findByThread(channel: string, threadTs: string, user: string): Promise<unknown> };
  /**
   * Question channels (absent: none): off while asking the docs is off; else whether a channel is one
   * (`/docs-settings answer-all on`; one Redis read, only for messages the question-channel rule takes).
   * @throws the Redis error.
   */
  questionChannels?: { enabled: boolean; answersAllIn(channel: string): Promise<boolean> };
}

/**
 * How long a message's intake is remembered to ignore Slack's retries and redeliveries (they come
 * within minutes: at once, after 1 and after 5 minutes). The record itself is deleted once handled.
 */
export const MESSAGE_DEDUPE_WINDOW_MS = 3_600_000;

/** Message subtypes written by people (Slack: message subtypes); every other subtype is ignored. */
const HUMAN_SUBTYPES = new Set<string | undefined>([undefined, 'file_share', 'thread_broadcast']);

/**
 * Records a person's message for the worker when it may be for the bot: a mention, a DM, or a
 * reply in a job's thread or an answer's that takes its author's replies (one lookup of the thread
 * indexes). Plain channel chatter and replies in other threads (someone else's thread the bot
 * answered a mention in, too) are dropped here, with no Redis write; when the thread index cannot be read, the
 * event is not acked (Slack redelivers it). The recorded text is cut to AGENT_PROMPT_MAX_CHARS
 * (`textChars` keeps its length, so a longer one is still refused, not truncated into a job). The
 * intake id is the message's `(channel, ts)`, so the `message` and `app_mention` events of one
 * message, and Slack's retries and redeliveries within {@link MESSAGE_DEDUPE_WINDOW_MS}, act once.
 * @throws {EventNotRecordedError} when Redis would not answer.
 */
async function recordMessage(
  deps: ConversationListenerDeps,
  msg: IncomingMessage,
  eventId: string,
  context: { botUserId?: string; retryNum?: number },
): Promise<void> {
  const botUserId = context.botUserId;
  const mentioned = msg.viaMention || mentionsUser(msg.text, botUserId);
  if (!mentioned && msg.channelType !== 'im' && msg.thread_ts === undefined) return;
  const tell = tellAuthor(deps, { user: msg.user, channel: msg.channel, threadTs: msg.thread_ts ?? msg.ts });
  const entry = {
    kind: INTAKE.message,
    id: `msg-${msg.channel}-${msg.ts}`,
    requestId: eventId,
    retryNum: context.retryNum,
    dedupeWindowMs: MESSAGE_DEDUPE_WINDOW_MS,
  };
  if (!mentioned && msg.thread_ts !== undefined) {
    const owner = await deps.threads
      .findByThread(msg.channel, msg.thread_ts, msg.user)
      .catch((err: unknown) => eventNotRecorded(deps.logger, entry, err, tell));
    if (!owner) return;
  }
  const cap = deps.promptMaxChars;
  const kept: IncomingMessage =
    msg.text.length > cap ? { ...msg, text: msg.text.slice(0, cap), textChars: msg.text.length } : msg;
  const payload: MessageIntake = { msg: kept, botUserId };
  await recordEvent(deps.intake, deps.logger, { ...entry, payload }, tell);
}

/**
 * A new top-level message in a question channel, when the question-channel rule takes it
 * (`./question-channel.ts`) and the channel is one: recorded under its own kind, the intake id the
 * message's `(channel, ts)` like every message. @returns whether it was (false: not such a
 * message). @throws {EventNotRecordedError} when Redis would not answer (Slack redelivers it).
 */
async function recordQuestionChannelMessage(
  deps: ConversationListenerDeps,
  event: unknown,
  b: { team_id: string; event_id: string },
  context: { botUserId?: string; retryNum?: number },
): Promise<boolean> {
  const channels = deps.questionChannels;
  if (!channels?.enabled) return false;
  const verdict = questionChannelMessage(event, context.botUserId);
  if (!verdict.take) return false;
  const { channel, user, ts } = verdict;
  const tell = tellAuthor(deps, { user, channel, threadTs: ts });
  const entry = {
    kind: INTAKE.questionChannel,
    id: `msg-${channel}-${ts}`,
    requestId: b.event_id,
    retryNum: context.retryNum,
    dedupeWindowMs: MESSAGE_DEDUPE_WINDOW_MS,
  };
  const on = await channels
    .answersAllIn(channel)
    .catch((err: unknown) => eventNotRecorded(deps.logger, entry, err, tell));
  if (!on) return false;
  const cap = deps.promptMaxChars;
  const text = verdict.text;
  const msg: IncomingMessage = {
    teamId: installationTeamId(b.team_id),
    channel,
    channelType: String((event as { channel_type?: unknown }).channel_type),
    user,
    text: text.length > cap ? text.slice(0, cap) : text,
    ...(text.length > cap ? { textChars: text.length } : {}),
    ts,
    viaMention: false,
  };
  const payload: MessageIntake = { msg, botUserId: context.botUserId };
  await recordEvent(deps.intake, deps.logger, { ...entry, payload }, tell);
  return true;
}

/**
 * How the author of a message that could not be recorded is told, on Slack's last retry: ephemerally
 * in its thread; a failure is one warn line.
 */
function tellAuthor(deps: ConversationListenerDeps, to: { user: string; channel: string; threadTs: string }) {
  return (text: string) =>
    tellPrivately(deps, to, text, { failure: 'could not tell the person their message was not taken' });
}

/**
 * `message` events (message.channels / .groups / .im): people's messages only, never bots'; a new
 * top-level message in a question channel goes its own way ({@link recordQuestionChannelMessage}).
 */
export function messageEvent(deps: ConversationListenerDeps) {
  return async ({ event, body, context }: EventArgs<'message'>): Promise<void> => {
    const e = event as unknown as Record<string, unknown>;
    const b = body as { team_id: string; event_id: string };
    if (await recordQuestionChannelMessage(deps, event, b, context)) return;
    if (
      e.bot_id ||
      !HUMAN_SUBTYPES.has(e.subtype as string | undefined) ||
      typeof e.user !== 'string' ||
      typeof e.text !== 'string'
    )
      return;
    const msg: IncomingMessage = {
      teamId: installationTeamId(b.team_id),
      channel: String(e.channel),
      ...(typeof e.channel_type === 'string' ? { channelType: e.channel_type } : {}),
      user: e.user,
      text: e.text,
      ts: String(e.ts),
      ...(typeof e.thread_ts === 'string' ? { thread_ts: e.thread_ts } : {}),
      viaMention: false,
    };
    await recordMessage(deps, msg, b.event_id, context);
  };
}

/** `app_mention`: starts a job in the mention's thread, or continues the job whose thread it is in. */
export function appMentionEvent(deps: ConversationListenerDeps) {
  return async ({ event, body, context }: EventArgs<'app_mention'>): Promise<void> => {
    if (event.bot_id || !event.user) return;
    const b = body as { team_id: string; event_id: string };
    const msg: IncomingMessage = {
      teamId: installationTeamId(b.team_id),
      channel: event.channel,
      user: event.user,
      text: event.text,
      ts: event.ts,
      ...(event.thread_ts ? { thread_ts: event.thread_ts } : {}),
      viaMention: true,
    };
    await recordMessage(deps, msg, b.event_id, context);
  };
}

/**
 * Registers people's messages: `message` (channels, private channels, DMs) and `app_mention`
 * (declared in manifest.yml).
 */
export function register(app: App, deps: ConversationListenerDeps): void {
  app.event('message', messageEvent(deps));
  app.event('app_mention', appMentionEvent(deps));
}
