/**
 * Plays Slack's part towards a bot in Socket Mode: the same high-level actions as {@link SlackDriver},
 * built by the same payload builders (`./driver/events.ts`, `./driver/interactions.ts`), but sent as
 * Socket Mode envelopes over the fake's WebSocket (`slack.socket`) instead of signed HTTP.
 *
 * Slack docs ("Using Socket Mode"): Events API payloads arrive as `events_api` envelopes (payload = the
 * `event_callback` body, redeliveries with `retry_attempt` / `retry_reason`), slash commands as
 * `slash_commands` (payload = the command's fields as an object, `accepts_response_payload: true`),
 * interactivity as `interactive` (payload = the block_actions / view_submission / message_action
 * body). Every method resolves with the app's ack ({@link AckRecord}: `payload` holds e.g. a slash
 * command's response or a view_submission's `response_action`) or rejects when none comes in time.
 */
import type { AckRecord, FakeSlack, SendEnvelopeOptions, SlackMessage } from './fake-slack.js';
import { DriverContext } from './driver/context.js';
import {
  appContextChangedEvent,
  appHomeOpenedEvent,
  botEchoEvent,
  eventCallback,
  humanEvent,
  messageChangedEvent,
  messageDeletedEvent,
} from './driver/events.js';
import {
  blockActionsPayload,
  messageActionPayload,
  slashCommandFields,
  viewSubmissionPayload,
} from './driver/interactions.js';
import type {
  BlockActionInput,
  DeliveryOptions,
  HumanMessage,
  MentionOptions,
  MessageShortcutInput,
  SlashCommandInput,
  ViewSubmissionInput,
} from './driver/types.js';

/** Options of {@link SocketModeDriver}. */
export interface SocketModeDriverOptions {
  /** The fake Slack whose socket the envelopes go out on and whose state the driver keeps in step. */
  slack: FakeSlack;
  /** Defaults to `slack.teamId`. */
  teamId?: string;
  /** Clock in epoch **seconds** for `event_time` and `action_ts`. Default `Date.now()/1000`. */
  now?: () => number;
}

/** Event delivery options over Socket Mode: `retryNum` / `retryReason` become `retry_attempt` / `retry_reason`; `timeoutMs` bounds the wait for the ack. */
export type SocketDeliveryOptions = DeliveryOptions & { timeoutMs?: number };

/** The ack of a message-like event plus the message's ts and the event id used. */
export type SocketEventDelivery = AckRecord & { ts: string; eventId: string };

/** Result of {@link SocketModeDriver.appMention}: the app_mention ack plus the companion message event's ack, if sent. */
export type SocketMentionDelivery = SocketEventDelivery & { messageEvent?: AckRecord & { eventId: string } };

type Json = Record<string, unknown>;

/** Sends Slack's envelopes to a Socket Mode app through the fake and returns its acks. */
export class SocketModeDriver {
  private readonly ctx: DriverContext;

  constructor(private readonly opts: SocketModeDriverOptions) {
    this.ctx = new DriverContext(opts);
  }

  /** A slash command: a `slash_commands` envelope whose payload is the command's fields (see SlackDriver.slashCommand). */
  async slashCommand(p: SlashCommandInput, o: SendEnvelopeOptions = {}): Promise<AckRecord> {
    return this.opts.slack.socket.send('slash_commands', slashCommandFields(this.ctx, p), o);
  }

  /** A person posts a message: recorded in the fake (unless `o.ts` redelivers one), then an `events_api` envelope. */
  async message(p: HumanMessage, o: SocketDeliveryOptions = {}): Promise<SocketEventDelivery> {
    const ts = o.ts ?? this.ctx.recordHuman(p).ts;
    const eventId = o.eventId ?? this.ctx.newEventId();
    const ack = await this.deliver(humanEvent(this.ctx, 'message', p, ts), eventId, o);
    return { ...ack, ts, eventId };
  }

  /** A person mentions the bot: `app_mention`, then (unless `alsoMessageEvent: false`) the `message` event Slack also sends. */
  async appMention(p: HumanMessage, o: MentionOptions & { timeoutMs?: number } = {}): Promise<SocketMentionDelivery> {
    const ts = o.ts ?? this.ctx.recordHuman(p).ts;
    const eventId = o.eventId ?? this.ctx.newEventId();
    const mention = await this.deliver(humanEvent(this.ctx, 'app_mention', p, ts), eventId, o);
    if (o.alsoMessageEvent === false) return { ...mention, ts, eventId };
    const messageEventId = this.ctx.newEventId();
    const retry: SocketDeliveryOptions = {
      ...(o.retryNum !== undefined ? { retryNum: o.retryNum, retryReason: o.retryReason ?? 'timeout' } : {}),
    };
    const messageEvent = await this.deliver(humanEvent(this.ctx, 'message', p, ts), messageEventId, {
      ...retry,
      ...(o.timeoutMs ? { timeoutMs: o.timeoutMs } : {}),
    });
    return { ...mention, ts, eventId, messageEvent: { ...messageEvent, eventId: messageEventId } };
  }

  /** The `message` event for the bot's own post (see SlackDriver.botMessageEcho). */
  async botMessageEcho(
    m: SlackMessage,
    o: SocketDeliveryOptions & { subtype?: 'bot_message' } = {},
  ): Promise<AckRecord> {
    return this.deliver(botEchoEvent(this.ctx, m, o.subtype), o.eventId ?? this.ctx.newEventId(), o);
  }

  /** A person edits their message (`message_changed`; the fake is updated first). */
  async messageChanged(
    p: { channel: string; ts: string; text: string; user?: string },
    o: SocketDeliveryOptions = {},
  ): Promise<AckRecord> {
    return this.deliver(messageChangedEvent(this.ctx, p), o.eventId ?? this.ctx.newEventId(), o);
  }

  /** A message is deleted (`message_deleted`; the fake is updated first). */
  async messageDeleted(p: { channel: string; ts: string }, o: SocketDeliveryOptions = {}): Promise<AckRecord> {
    return this.deliver(messageDeletedEvent(this.ctx, p), o.eventId ?? this.ctx.newEventId(), o);
  }

  /** A person opens the app's Home tab (`app_home_opened`). */
  async appHomeOpened(
    user: string,
    o: SocketDeliveryOptions & { tab?: 'home' | 'messages'; viewing?: string } = {},
  ): Promise<AckRecord> {
    return this.deliver(appHomeOpenedEvent(this.ctx, user, o.tab, o.viewing), o.eventId ?? this.ctx.newEventId(), o);
  }

  /** `app_context_changed`: `user` now looks at channel `viewing` beside the agent view (undefined: nothing). */
  async appContextChanged(user: string, viewing?: string, o: SocketDeliveryOptions = {}): Promise<AckRecord> {
    return this.deliver(appContextChangedEvent(this.ctx, user, viewing), o.eventId ?? this.ctx.newEventId(), o);
  }

  /** A click on a message element: an `interactive` envelope with a block_actions payload. */
  async blockAction(p: BlockActionInput, o: SendEnvelopeOptions = {}): Promise<AckRecord> {
    return this.opts.slack.socket.send('interactive', blockActionsPayload(this.ctx, p), o);
  }

  /** A modal submission: an `interactive` envelope (accepts_response_payload true, so the ack may carry `response_action`). */
  async viewSubmission(p: ViewSubmissionInput, o: SendEnvelopeOptions = {}): Promise<AckRecord> {
    return this.opts.slack.socket.send('interactive', viewSubmissionPayload(this.ctx, p), o);
  }

  /** A message shortcut: an `interactive` envelope with a message_action payload. */
  async messageShortcut(p: MessageShortcutInput, o: SendEnvelopeOptions = {}): Promise<AckRecord> {
    return this.opts.slack.socket.send('interactive', messageActionPayload(this.ctx, p), o);
  }

  /** Send an `events_api` envelope around `event`; redeliveries carry retry_attempt / retry_reason. */
  private deliver(event: Json, eventId: string, o: SocketDeliveryOptions): Promise<AckRecord> {
    const opts: SendEnvelopeOptions = {
      ...(o.retryNum !== undefined ? { retryAttempt: o.retryNum, retryReason: o.retryReason ?? 'timeout' } : {}),
      ...(o.timeoutMs !== undefined ? { timeoutMs: o.timeoutMs } : {}),
    };
    return this.opts.slack.socket.send('events_api', eventCallback(this.ctx, event, eventId), opts);
  }
}
