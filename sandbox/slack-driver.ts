/**
 * Plays Slack's part towards the bot over HTTP: sends correctly signed requests to the bot's
 * `/slack/events` endpoint exactly as Slack would, and keeps the fake Slack's channel state in step
 * (a person's message is recorded in the fake before the event about it is delivered).
 *
 * The payloads come from `./driver/events.ts` (Events API: "Events API" envelope, `message`,
 * `app_mention`, `message_changed`, `message_deleted`, `app_home_opened`, `url_verification`) and
 * `./driver/interactions.ts` (slash commands, block_actions, view_submission, message shortcuts), which
 * the Socket Mode driver (`./socket-driver.ts`) shares; signing and sending live in `./driver/http.ts`
 * (Slack docs: "Verifying requests from Slack").
 */
import type { FakeSlack, SlackMessage } from './fake-slack.js';
import { DriverContext, type DriverContextOptions } from './driver/context.js';
import {
  appContextChangedEvent,
  appHomeOpenedEvent,
  userChangeEvent,
  botEchoEvent,
  eventCallback,
  humanEvent,
  messageChangedEvent,
  messageDeletedEvent,
  teamAccessEnvelope,
  appUninstalledEnvelope,
  tokensRevokedEnvelope,
  urlVerification,
} from './driver/events.js';
import { postRaw, signatureHeaders, SLACK_USER_AGENT, type DriverResponse } from './driver/http.js';
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

export type { DriverResponse } from './driver/http.js';
export type {
  BlockActionInput,
  DeliveryOptions,
  HumanMessage,
  MentionOptions,
  MessageShortcutInput,
  SlashCommandInput,
  ViewSubmissionInput,
} from './driver/types.js';

/** Options of {@link SlackDriver}. */
export interface SlackDriverOptions {
  /** The bot's request URL, e.g. "http://127.0.0.1:3000/slack/events". */
  botUrl: string;
  /** The app's signing secret (SLACK_SIGNING_SECRET). */
  signingSecret: string;
  /** The fake Slack whose state the driver keeps in step and whose response_urls/trigger_ids it hands out. */
  slack: FakeSlack;
  /** Defaults to `slack.teamId`. */
  teamId?: string;
  /** Clock in epoch **seconds** for `X-Slack-Request-Timestamp` and `event_time`. Default: `Date.now()/1000`. */
  now?: () => number;
  /** Clock in epoch seconds for `X-Slack-Request-Timestamp` only (e.g. a stale or future one). Default: `now`. */
  signatureTimestamp?: () => number;
  /** The org of the driver's workspace and whether the app is installed org-wide there (DriverContextOptions). */
  enterprise?: DriverContextOptions['enterprise'];
}

/** Result of delivering a message-like event: the message's ts and the event id used. */
export type EventDelivery = DriverResponse & { ts: string; eventId: string };

/** Result of {@link SlackDriver.appMention}: the `app_mention` delivery plus the companion `message` delivery, if sent. */
export type MentionDelivery = EventDelivery & { messageEvent?: DriverResponse & { eventId: string } };

type Json = Record<string, unknown>;

/**
 * Sends requests to the bot as Slack would, each signed with `opts.signingSecret` at
 * `opts.signatureTimestamp()` (default the driver's clock).
 */
export class SlackDriver {
  private ctx: DriverContext;

  constructor(private readonly opts: SlackDriverOptions) {
    this.ctx = new DriverContext(opts);
  }

  /**
   * A driver that signs every request with `X-Slack-Request-Timestamp: timestampS` (epoch seconds, past
   * or future) and otherwise shares this one's state — to test the five-minute window both ways.
   */
  signingAt(timestampS: number): SlackDriver {
    const driver = new SlackDriver({ ...this.opts, signatureTimestamp: () => timestampS });
    driver.ctx = this.ctx;
    return driver;
  }

  /**
   * Signature headers for `body` (Slack docs: "Verifying requests from Slack").
   * @param body - the exact raw request body that will be sent.
   * @param timestampS - epoch seconds; default `opts.signatureTimestamp()`, else `opts.now()`.
   * @returns `{ 'X-Slack-Signature': 'v0=<hex>', 'X-Slack-Request-Timestamp': '<seconds>' }`.
   */
  sign(body: string, timestampS?: number): Record<string, string> {
    const clock = this.opts.signatureTimestamp ?? this.ctx.nowS;
    return signatureHeaders(this.opts.signingSecret, body, timestampS ?? clock());
  }

  /**
   * POST `body` to the bot with exactly `headers` (nothing is signed or added) — for forged/stale signature tests.
   * @returns the bot's status and body; never throws on HTTP errors (network errors do throw).
   */
  async raw(body: string, headers: Record<string, string>): Promise<DriverResponse> {
    return postRaw(this.opts.botUrl, body, headers);
  }

  /** Send the `url_verification` handshake (Slack docs: "url_verification event"); the bot must echo `challenge`. */
  async urlVerification(challenge = `challenge-${this.ctx.nextId()}`): Promise<DriverResponse> {
    return this.postJson(urlVerification(challenge));
  }

  /**
   * Invoke a slash command like Slack does: a form-encoded POST of the command's fields (see
   * `slashCommandFields`: Slack docs "Slash commands"). Also records "<command> <text>" as the user's
   * message (`source: 'command'`). The response_url is bound to the user (ephemeral replies) and channel.
   */
  async slashCommand(p: SlashCommandInput): Promise<DriverResponse> {
    return this.postForm(new URLSearchParams(slashCommandFields(this.ctx, p)).toString());
  }

  /**
   * A person posts a message (event `message`, Slack docs: "message event"). Records it in the fake
   * (unless `o.ts` names an existing message, i.e. a redelivery) and delivers the `event_callback`.
   */
  async message(p: HumanMessage, o: DeliveryOptions = {}): Promise<EventDelivery> {
    const ts = o.ts ?? this.ctx.recordHuman(p).ts;
    const eventId = o.eventId ?? this.ctx.newEventId();
    const res = await this.deliver(humanEvent(this.ctx, 'message', p, ts), eventId, o);
    return { ...res, ts, eventId };
  }

  /**
   * A person mentions the bot (event `app_mention`; `p.text` should contain `<@BOTUSERID>`). Real Slack
   * also sends a `message` event for the same ts (its own event id) when the app subscribes to message
   * events; `alsoMessageEvent` (default true) sends it right after the mention.
   */
  async appMention(p: HumanMessage, o: MentionOptions = {}): Promise<MentionDelivery> {
    const ts = o.ts ?? this.ctx.recordHuman(p).ts;
    const eventId = o.eventId ?? this.ctx.newEventId();
    const mention = await this.deliver(humanEvent(this.ctx, 'app_mention', p, ts), eventId, o);
    if (o.alsoMessageEvent === false) return { ...mention, ts, eventId };
    const messageEventId = this.ctx.newEventId();
    const retryOpts: DeliveryOptions = {
      ...(o.retryNum !== undefined ? { retryNum: o.retryNum } : {}),
      ...(o.retryReason ? { retryReason: o.retryReason } : {}),
    };
    const messageEvent = await this.deliver(humanEvent(this.ctx, 'message', p, ts), messageEventId, retryOpts);
    return { ...mention, ts, eventId, messageEvent: { ...messageEvent, eventId: messageEventId } };
  }

  /** Deliver the `message` event Slack sends for the bot's own post (see `botEchoEvent`). */
  async botMessageEcho(
    m: SlackMessage,
    o: DeliveryOptions & { subtype?: 'bot_message' } = {},
  ): Promise<DriverResponse> {
    return this.deliver(botEchoEvent(this.ctx, m, o.subtype), o.eventId ?? this.ctx.newEventId(), o);
  }

  /** A person edits their message: updates the fake and delivers `message_changed` (Slack docs: "message_changed"). */
  async messageChanged(
    p: { channel: string; ts: string; text: string; user?: string },
    o: DeliveryOptions = {},
  ): Promise<DriverResponse> {
    return this.deliver(messageChangedEvent(this.ctx, p), o.eventId ?? this.ctx.newEventId(), o);
  }

  /** A message is deleted: marks it in the fake and delivers `message_deleted` (Slack docs: "message_deleted"). */
  async messageDeleted(p: { channel: string; ts: string }, o: DeliveryOptions = {}): Promise<DriverResponse> {
    return this.deliver(messageDeletedEvent(this.ctx, p), o.eventId ?? this.ctx.newEventId(), o);
  }

  /** A person opens the app's Home tab (Slack docs: "app_home_opened"); `view` once one was published. */
  async appHomeOpened(
    user: string,
    o: DeliveryOptions & { tab?: 'home' | 'messages'; viewing?: string } = {},
  ): Promise<DriverResponse> {
    return this.deliver(appHomeOpenedEvent(this.ctx, user, o.tab, o.viewing), o.eventId ?? this.ctx.newEventId(), o);
  }

  /** `app_context_changed`: `user` now looks at channel `viewing` beside the agent view (undefined: nothing). */
  async appContextChanged(user: string, viewing?: string, o: DeliveryOptions = {}): Promise<DriverResponse> {
    return this.deliver(appContextChangedEvent(this.ctx, user, viewing), o.eventId ?? this.ctx.newEventId(), o);
  }

  /** A member's data changed (Slack docs: "user_change"): delivers their user object as the fake has it now. */
  async userChange(user: string, o: DeliveryOptions = {}): Promise<DriverResponse> {
    return this.deliver(userChangeEvent(this.ctx, user), o.eventId ?? this.ctx.newEventId(), o);
  }

  /** The org-wide app is added to (`granted`) or removed from (`revoked`) workspaces `teamIds` (see {@link teamAccessEnvelope}). */
  async teamAccess(change: 'granted' | 'revoked', teamIds: string[]): Promise<DriverResponse> {
    return this.postJson(teamAccessEnvelope(this.ctx, change, teamIds, this.ctx.newEventId()));
  }

  /** The app is uninstalled from the driver's workspace (see {@link appUninstalledEnvelope}): its OAuth tokens are revoked. */
  async appUninstalled(): Promise<DriverResponse> {
    return this.postJson(appUninstalledEnvelope(this.ctx, this.ctx.newEventId()));
  }

  /**
   * The bot token of the driver's workspace is revoked (see {@link tokensRevokedEnvelope}); Slack
   * sends this beside `app_uninstalled` on an uninstall, in either order.
   */
  async tokensRevoked(): Promise<DriverResponse> {
    return this.postJson(tokensRevokedEnvelope(this.ctx, this.ctx.newEventId()));
  }

  /**
   * The driver's workspace is deleted, the app not uninstalled first: no event reaches the bot, and
   * every method answers the workspace's tokens `account_inactive` (FakeInstallsApi.deleteWorkspace).
   */
  workspaceDeleted(): void {
    this.ctx.slack.installs.deleteWorkspace(this.ctx.teamId);
  }

  /** A person clicks an interactive element on a message: form field `payload` holding a `block_actions` payload. */
  async blockAction(p: BlockActionInput): Promise<DriverResponse> {
    return this.postPayload(blockActionsPayload(this.ctx, p));
  }

  /**
   * A person submits a modal (Slack docs: "View interaction payloads", type `view_submission`). The bot's
   * HTTP answer carries any `response_action` (e.g. `errors`) in `json`.
   */
  async viewSubmission(p: ViewSubmissionInput): Promise<DriverResponse> {
    return this.postPayload(viewSubmissionPayload(this.ctx, p));
  }

  /**
   * A person uses message shortcut `callbackId` on a message (Slack docs: "Shortcuts payloads",
   * type `message_action`), with a trigger_id minted by the fake (so `views.open` accepts it) and a
   * response_url bound to the user, channel and message.
   */
  async messageShortcut(p: MessageShortcutInput): Promise<DriverResponse> {
    return this.postPayload(messageActionPayload(this.ctx, p));
  }

  // ---------------------------------------------------------------- sending

  /** POST an `event_callback` around `event`, with `X-Slack-Retry-*` headers for redeliveries. */
  private async deliver(event: Json, eventId: string, o: DeliveryOptions): Promise<DriverResponse> {
    const headers: Record<string, string> = {};
    if (o.retryNum !== undefined) {
      headers['X-Slack-Retry-Num'] = String(o.retryNum);
      headers['X-Slack-Retry-Reason'] = o.retryReason ?? 'http_timeout';
    }
    return this.postJson(eventCallback(this.ctx, event, eventId), headers);
  }

  private async postJson(body: Json, extra: Record<string, string> = {}): Promise<DriverResponse> {
    const text = JSON.stringify(body);
    return this.raw(text, {
      'Content-Type': 'application/json',
      'User-Agent': SLACK_USER_AGENT,
      ...this.sign(text),
      ...extra,
    });
  }

  /** POST an interactivity payload as Slack does: form field `payload` holding JSON. */
  private async postPayload(payload: Json): Promise<DriverResponse> {
    return this.postForm(new URLSearchParams({ payload: JSON.stringify(payload) }).toString());
  }

  private async postForm(body: string): Promise<DriverResponse> {
    return this.raw(body, {
      'Content-Type': 'application/x-www-form-urlencoded',
      'User-Agent': SLACK_USER_AGENT,
      ...this.sign(body),
    });
  }
}
