/**
 * Plays Slack's part towards the bot: sends correctly signed HTTP requests to the bot's
 * `/slack/events` endpoint exactly as Slack would, and keeps the fake Slack's channel state in step
 * (a person's message is recorded in the fake before the event about it is delivered).
 *
 * Payload shapes follow Slack's docs: "Slash commands" (form-encoded fields), "Events API" (the
 * `event_callback` envelope with `event_id`, `event_time`, `authorizations`), event reference pages
 * (`message`, `app_mention`, `message_changed`, `message_deleted`, `app_home_opened`,
 * `url_verification`), "block_actions payload" and "View interaction payloads" (form field `payload`
 * holding JSON), and "Verifying requests from Slack" (signing).
 */
import { createHmac } from 'node:crypto';
import type { FakeSlack, SlackMessage } from './fake-slack.js';

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
}

/** The bot's HTTP answer. `json` is set when the body parses as JSON. */
export interface DriverResponse {
  status: number;
  body: string;
  json?: unknown;
}

/** A person's message (or its redelivery) as it reaches the bot. `channelType` defaults from the channel (IM → "im"). */
export interface HumanMessage {
  channel: string;
  user: string;
  text: string;
  thread_ts?: string;
  channelType?: 'channel' | 'group' | 'im';
}

/** Delivery options for events. */
export interface DeliveryOptions {
  /** Event id to use (e.g. to simulate a redelivery with the same id). Default: a fresh "Ev…" id. */
  eventId?: string;
  /** Adds `X-Slack-Retry-Num` (Slack retries up to 3 times, Events API docs). */
  retryNum?: number;
  /** Adds `X-Slack-Retry-Reason` (e.g. "http_timeout", "http_error"). Default "http_timeout" when retryNum is set. */
  retryReason?: string;
  /** ts of an existing message: redeliver the event for it instead of recording a new human message. */
  ts?: string;
}

/** A click on an interactive element of message `messageTs` in `channel`. `value`/`blockId` default from the message's blocks. */
export interface BlockActionInput {
  user: string;
  channel: string;
  messageTs: string;
  actionId: string;
  value?: string;
  blockId?: string;
  threadTs?: string;
}

/** Result of delivering a message-like event: the message's ts and the event id used. */
export type EventDelivery = DriverResponse & { ts: string; eventId: string };

/** Result of {@link SlackDriver.appMention}: the `app_mention` delivery plus the companion `message` delivery, if sent. */
export type MentionDelivery = EventDelivery & { messageEvent?: DriverResponse & { eventId: string } };

type Json = Record<string, unknown>;

/** The User-Agent Slack's servers send with Events API / interactivity requests. */
const SLACK_USER_AGENT = 'Slackbot 1.0 (+https://api.slack.com/robots)';

/** Where a Block Kit element with a given action_id sits. */
interface FoundElement {
  blockId?: string;
  element: Json;
}

function findElement(blocks: unknown, actionId: string): FoundElement | undefined {
  if (!Array.isArray(blocks)) return undefined;
  for (const block of blocks as Json[]) {
    const candidates: unknown[] = [];
    if (Array.isArray(block.elements)) candidates.push(...(block.elements as unknown[]));
    if (block.accessory) candidates.push(block.accessory);
    if (block.element) candidates.push(block.element);
    for (const el of candidates) {
      if (el && typeof el === 'object' && (el as Json).action_id === actionId) {
        return { ...(typeof block.block_id === 'string' ? { blockId: block.block_id } : {}), element: el as Json };
      }
    }
  }
  return undefined;
}

/**
 * Sends requests to the bot as Slack would. Every request is signed with `opts.signingSecret`
 * (Slack docs: "Verifying requests from Slack": `X-Slack-Signature: v0=<hex HMAC-SHA256 of "v0:<timestamp>:<raw body>">`
 * and `X-Slack-Request-Timestamp: <epoch seconds>`).
 *
 * Content types are exactly Slack's: events as `application/json`, slash commands and interactivity as
 * `application/x-www-form-urlencoded` (Bolt compares the header verbatim, so no charset is appended).
 */
export class SlackDriver {
  private readonly teamId: string;
  private readonly nowS: () => number;
  private seq = 0;

  constructor(private readonly opts: SlackDriverOptions) {
    this.teamId = opts.teamId ?? opts.slack.teamId;
    this.nowS = opts.now ?? (() => Math.floor(Date.now() / 1000));
  }

  /**
   * Signature headers for `body` (Slack docs: "Verifying requests from Slack").
   * @param body - the exact raw request body that will be sent.
   * @param timestampS - epoch seconds; default `opts.now()`.
   * @returns `{ 'X-Slack-Signature': 'v0=<hex>', 'X-Slack-Request-Timestamp': '<seconds>' }`.
   */
  sign(body: string, timestampS?: number): Record<string, string> {
    const ts = Math.floor(timestampS ?? this.nowS());
    const signature = createHmac('sha256', this.opts.signingSecret).update(`v0:${ts}:${body}`).digest('hex');
    return { 'X-Slack-Signature': `v0=${signature}`, 'X-Slack-Request-Timestamp': String(ts) };
  }

  /**
   * POST `body` to the bot with exactly `headers` (nothing is signed or added) — for forged/stale signature tests.
   * @returns the bot's status and body; never throws on HTTP errors (network errors do throw).
   */
  async raw(body: string, headers: Record<string, string>): Promise<DriverResponse> {
    const res = await fetch(this.opts.botUrl, { method: 'POST', headers, body });
    const text = await res.text();
    let json: unknown;
    try {
      json = text ? (JSON.parse(text) as unknown) : undefined;
    } catch {
      json = undefined;
    }
    return { status: res.status, body: text, ...(json === undefined ? {} : { json }) };
  }

  /**
   * Send the `url_verification` handshake Slack sends when the Request URL is configured (Slack docs:
   * "url_verification event"); the bot must echo `challenge`.
   */
  async urlVerification(challenge = `challenge-${this.nextId()}`): Promise<DriverResponse> {
    return this.postJson({ token: 'sandbox-verification-token', challenge, type: 'url_verification' });
  }

  /**
   * Invoke a slash command like Slack does: a form-encoded POST with token, team_id, team_domain,
   * channel_id, channel_name, user_id, user_name, command, text, api_app_id, is_enterprise_install,
   * response_url and trigger_id (Slack docs: "Slash commands"; Bolt's `SlashCommand` type).
   * Also records "<command> <text>" as the user's message in the fake so transcripts show it
   * (real Slack does not post it; it is marked `source: 'command'`).
   * The response_url is bound to the user (ephemeral replies) and channel.
   */
  async slashCommand(p: { command: string; text: string; user: string; channel: string; userName?: string }): Promise<DriverResponse> {
    const slack = this.opts.slack;
    const channel = slack.channels.find((c) => c.id === p.channel);
    slack.addUserMessage({ channel: p.channel, user: p.user, text: `${p.command} ${p.text}`.trim(), source: 'command' });
    const form = new URLSearchParams({
      token: 'sandbox-verification-token',
      team_id: this.teamId,
      team_domain: slack.teamDomain,
      channel_id: p.channel,
      channel_name: channel?.isIm ? 'directmessage' : (channel?.name ?? 'unknown'),
      user_id: p.user,
      user_name: p.userName ?? this.userName(p.user),
      command: p.command,
      text: p.text,
      api_app_id: slack.appId,
      is_enterprise_install: 'false',
      response_url: slack.responseUrl(undefined, { user: p.user, channel: p.channel }),
      trigger_id: slack.triggerId(p.user),
    });
    return this.postForm(form.toString());
  }

  /**
   * A person posts a message (event `message`, Slack docs: "message event"). Records it in the fake
   * (unless `o.ts` names an existing message, i.e. a redelivery) and delivers the `event_callback`.
   */
  async message(p: HumanMessage, o: DeliveryOptions = {}): Promise<EventDelivery> {
    const ts = o.ts ?? this.recordHuman(p).ts;
    const eventId = o.eventId ?? this.newEventId();
    const res = await this.deliver(this.humanEvent('message', p, ts), eventId, o);
    return { ...res, ts, eventId };
  }

  /**
   * A person mentions the bot (event `app_mention`; `p.text` should contain `<@BOTUSERID>`).
   * Real Slack also sends a `message` event for the same ts (with its own event id) when the app
   * subscribes to message events; `alsoMessageEvent` (default true) sends it right after the mention.
   */
  async appMention(p: HumanMessage, o: DeliveryOptions & { alsoMessageEvent?: boolean } = {}): Promise<MentionDelivery> {
    const ts = o.ts ?? this.recordHuman(p).ts;
    const eventId = o.eventId ?? this.newEventId();
    const mention = await this.deliver(this.humanEvent('app_mention', p, ts), eventId, o);
    if (o.alsoMessageEvent === false) return { ...mention, ts, eventId };
    const messageEventId = this.newEventId();
    const retryOpts: DeliveryOptions = {
      ...(o.retryNum !== undefined ? { retryNum: o.retryNum } : {}),
      ...(o.retryReason ? { retryReason: o.retryReason } : {}),
    };
    const messageEvent = await this.deliver(this.humanEvent('message', p, ts), messageEventId, retryOpts);
    return { ...mention, ts, eventId, messageEvent: { ...messageEvent, eventId: messageEventId } };
  }

  /**
   * Deliver the `message` event Slack sends for the bot's own post (apps subscribed to message
   * events receive their own messages): `user` is the bot user, `bot_id`/`app_id` set, and no subtype
   * unless `subtype: 'bot_message'` is asked for.
   */
  async botMessageEcho(m: SlackMessage, o: DeliveryOptions & { subtype?: 'bot_message' } = {}): Promise<DriverResponse> {
    const slack = this.opts.slack;
    const event: Json = {
      type: 'message',
      ...(o.subtype ? { subtype: o.subtype } : {}),
      user: m.user ?? slack.botUserId,
      bot_id: m.bot_id ?? slack.botId,
      app_id: slack.appId,
      text: m.text,
      ts: m.ts,
      channel: m.channel,
      event_ts: m.ts,
      channel_type: this.channelType(m.channel),
      team: this.teamId,
      bot_profile: { id: slack.botId, app_id: slack.appId, name: 'Docs Agent', team_id: this.teamId, deleted: false },
      ...(m.thread_ts ? { thread_ts: m.thread_ts } : {}),
      ...(m.blocks ? { blocks: m.blocks } : {}),
    };
    return this.deliver(event, o.eventId ?? this.newEventId(), o);
  }

  /**
   * A person edits their message: updates it in the fake and delivers `message` with subtype
   * `message_changed` (Slack docs: "message_changed"): `hidden: true`, `message` (new state with
   * `edited`) and `previous_message`.
   */
  async messageChanged(p: { channel: string; ts: string; text: string; user?: string }, o: DeliveryOptions = {}): Promise<DriverResponse> {
    const existing = this.opts.slack.findMessage(p.channel, p.ts);
    const user = p.user ?? existing?.user ?? 'U0UNKNOWN';
    const previousText = existing?.text ?? '';
    if (existing) {
      existing.text = p.text;
      existing.edited = true;
    }
    const eventTs = this.eventTs();
    const base = { type: 'message', user, ts: p.ts, ...(existing?.thread_ts ? { thread_ts: existing.thread_ts } : {}) };
    return this.deliver(
      {
        type: 'message',
        subtype: 'message_changed',
        hidden: true,
        channel: p.channel,
        channel_type: this.channelType(p.channel),
        ts: eventTs,
        event_ts: eventTs,
        message: { ...base, text: p.text, edited: { user, ts: eventTs } },
        previous_message: { ...base, text: previousText },
      },
      o.eventId ?? this.newEventId(),
      o,
    );
  }

  /**
   * A message is deleted: marks it deleted in the fake and delivers `message` with subtype
   * `message_deleted` (Slack docs: "message_deleted"): `hidden: true`, `deleted_ts`, `previous_message`.
   */
  async messageDeleted(p: { channel: string; ts: string }, o: DeliveryOptions = {}): Promise<DriverResponse> {
    const existing = this.opts.slack.findMessage(p.channel, p.ts);
    if (existing) existing.deleted = true;
    const eventTs = this.eventTs();
    return this.deliver(
      {
        type: 'message',
        subtype: 'message_deleted',
        hidden: true,
        channel: p.channel,
        channel_type: this.channelType(p.channel),
        ts: eventTs,
        event_ts: eventTs,
        deleted_ts: p.ts,
        previous_message: {
          type: 'message',
          ts: p.ts,
          text: existing?.text ?? '',
          ...(existing?.user ? { user: existing.user } : {}),
          ...(existing?.bot_id ? { bot_id: existing.bot_id } : {}),
        },
      },
      o.eventId ?? this.newEventId(),
      o,
    );
  }

  /**
   * A person opens the app's Home tab (Slack docs: "app_home_opened"): `channel` is the IM with the
   * bot; `view` is included once a home view was published for that user.
   */
  async appHomeOpened(user: string, o: DeliveryOptions & { tab?: 'home' | 'messages' } = {}): Promise<DriverResponse> {
    const slack = this.opts.slack;
    const im = slack.channels.find((c) => c.isIm && c.user === user);
    const published = [...slack.views].reverse().find((v) => v.kind === 'home' && v.userId === user);
    const event: Json = {
      type: 'app_home_opened',
      user,
      channel: im?.id ?? `D${user.replace(/^[UW]/, '')}`,
      tab: o.tab ?? 'home',
      event_ts: this.eventTs(),
      ...(published ? { view: { id: published.id, team_id: this.teamId, type: 'home', ...published.view, hash: published.hash } } : {}),
    };
    return this.deliver(event, o.eventId ?? this.newEventId(), o);
  }

  /**
   * A person clicks an interactive element on a message (Slack docs: "block_actions payload"):
   * form field `payload` with type `block_actions`, `container` `{type:"message", message_ts,
   * channel_id, is_ephemeral, thread_ts?}`, the full `message`, `response_url` (bound to the user,
   * channel and message, so `replace_original` works), `trigger_id` and `actions[]`. The element's
   * type/text/url/block_id are looked up in the message's blocks when present.
   */
  async blockAction(p: BlockActionInput): Promise<DriverResponse> {
    const slack = this.opts.slack;
    const message = slack.messages.find((m) => m.channel === p.channel && m.ts === p.messageTs && !m.deleted);
    const threadTs = p.threadTs ?? message?.thread_ts;
    const found = findElement(message?.blocks, p.actionId);
    const element = found?.element ?? {};
    const channel = slack.channels.find((c) => c.id === p.channel);
    const action: Json = {
      type: typeof element.type === 'string' ? element.type : 'button',
      action_id: p.actionId,
      block_id: p.blockId ?? found?.blockId ?? 'actions',
      ...(element.text ? { text: element.text } : { text: { type: 'plain_text', text: p.actionId, emoji: true } }),
      ...((p.value ?? element.value) !== undefined ? { value: p.value ?? element.value } : {}),
      ...(typeof element.url === 'string' ? { url: element.url } : {}),
      ...(typeof element.style === 'string' ? { style: element.style } : {}),
      action_ts: this.eventTs(),
    };
    const payload: Json = {
      type: 'block_actions',
      user: { id: p.user, username: this.userName(p.user), name: this.userName(p.user), team_id: this.teamId },
      api_app_id: slack.appId,
      token: 'sandbox-verification-token',
      container: {
        type: 'message',
        message_ts: p.messageTs,
        channel_id: p.channel,
        is_ephemeral: Boolean(message?.ephemeralTo),
        ...(threadTs ? { thread_ts: threadTs } : {}),
      },
      trigger_id: slack.triggerId(p.user),
      team: { id: this.teamId, domain: slack.teamDomain },
      enterprise: null,
      is_enterprise_install: false,
      channel: { id: p.channel, name: channel?.isIm ? 'directmessage' : (channel?.name ?? 'unknown') },
      message: {
        type: 'message',
        ts: p.messageTs,
        text: message?.text ?? '',
        ...(message?.user ? { user: message.user } : {}),
        ...(message?.bot_id ? { bot_id: message.bot_id, app_id: slack.appId } : {}),
        ...(threadTs ? { thread_ts: threadTs } : {}),
        ...(message?.blocks ? { blocks: message.blocks } : {}),
        team: this.teamId,
      },
      state: { values: {} },
      response_url: slack.responseUrl(undefined, {
        user: p.user,
        channel: p.channel,
        messageTs: p.messageTs,
        ...(threadTs ? { threadTs } : {}),
      }),
      actions: [action],
    };
    return this.postForm(new URLSearchParams({ payload: JSON.stringify(payload) }).toString());
  }

  /**
   * A person submits a modal (Slack docs: "View interaction payloads", type `view_submission`).
   * `view` is completed from the latest modal the fake recorded with the same callback_id (id, blocks, hash).
   * The bot's HTTP answer carries any `response_action` (e.g. `errors`) in `json`.
   */
  async viewSubmission(p: {
    user: string;
    view: { callback_id: string; private_metadata?: string; state: { values: Record<string, Record<string, { type: string; value?: string }>> } };
  }): Promise<DriverResponse> {
    const slack = this.opts.slack;
    const opened = [...slack.views].reverse().find((v) => v.kind === 'modal' && v.view.callback_id === p.view.callback_id);
    const id = opened?.id ?? `V${String(this.nextId()).padStart(8, '0')}`;
    const payload: Json = {
      type: 'view_submission',
      team: { id: this.teamId, domain: slack.teamDomain },
      user: { id: p.user, username: this.userName(p.user), name: this.userName(p.user), team_id: this.teamId },
      api_app_id: slack.appId,
      token: 'sandbox-verification-token',
      trigger_id: slack.triggerId(p.user),
      view: {
        id,
        team_id: this.teamId,
        type: 'modal',
        blocks: opened?.view.blocks ?? [],
        title: opened?.view.title ?? { type: 'plain_text', text: 'Modal' },
        ...(opened?.view.submit ? { submit: opened.view.submit } : {}),
        ...(opened?.view.close ? { close: opened.view.close } : {}),
        private_metadata: p.view.private_metadata ?? (typeof opened?.view.private_metadata === 'string' ? opened.view.private_metadata : ''),
        callback_id: p.view.callback_id,
        state: p.view.state,
        hash: opened?.hash ?? `${this.nowS()}.${this.nextId()}`,
        clear_on_close: false,
        notify_on_close: false,
        root_view_id: id,
        previous_view_id: null,
        app_id: slack.appId,
        external_id: '',
        app_installed_team_id: this.teamId,
        bot_id: slack.botId,
      },
      response_urls: [],
      is_enterprise_install: false,
      enterprise: null,
    };
    return this.postForm(new URLSearchParams({ payload: JSON.stringify(payload) }).toString());
  }

  // ---------------------------------------------------------------- internals

  private nextId(): number {
    this.seq += 1;
    return this.seq;
  }

  private newEventId(): string {
    return `Ev${String(this.nextId()).padStart(9, '0')}SANDBOX`;
  }

  /** An event_ts-like string in epoch seconds with micro part (unique per driver). */
  private eventTs(): string {
    return `${this.nowS()}.${String(this.nextId()).padStart(6, '0')}`;
  }

  private recordHuman(p: HumanMessage): SlackMessage {
    return this.opts.slack.addUserMessage({ channel: p.channel, user: p.user, text: p.text, ...(p.thread_ts ? { thread_ts: p.thread_ts } : {}) });
  }

  private userName(id: string): string {
    return this.opts.slack.users.find((u) => u.id === id)?.name ?? id.toLowerCase();
  }

  private channelType(channel: string): 'channel' | 'group' | 'im' {
    return this.opts.slack.channels.find((c) => c.id === channel)?.isIm ? 'im' : 'channel';
  }

  private humanEvent(type: 'message' | 'app_mention', p: HumanMessage, ts: string): Json {
    const slack = this.opts.slack;
    const root = p.thread_ts ? slack.findMessage(p.channel, p.thread_ts) : undefined;
    return {
      type,
      user: p.user,
      text: p.text,
      ts,
      channel: p.channel,
      event_ts: ts,
      team: this.teamId,
      client_msg_id: `00000000-0000-4000-8000-${ts.replace('.', '').slice(-12).padStart(12, '0')}`,
      ...(type === 'message' ? { channel_type: p.channelType ?? this.channelType(p.channel) } : {}),
      ...(p.thread_ts ? { thread_ts: p.thread_ts } : {}),
      ...(root?.user ? { parent_user_id: root.user } : {}),
      blocks: [
        {
          type: 'rich_text',
          block_id: `b${this.nextId()}`,
          elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text: p.text }] }],
        },
      ],
    };
  }

  private async deliver(event: Json, eventId: string, o: DeliveryOptions): Promise<DriverResponse> {
    const slack = this.opts.slack;
    const envelope: Json = {
      token: 'sandbox-verification-token',
      team_id: this.teamId,
      context_team_id: this.teamId,
      context_enterprise_id: null,
      api_app_id: slack.appId,
      event,
      type: 'event_callback',
      event_id: eventId,
      event_time: this.nowS(),
      authorizations: [{ enterprise_id: null, team_id: this.teamId, user_id: slack.botUserId, is_bot: true, is_enterprise_install: false }],
      is_ext_shared_channel: false,
      event_context: `4-${Buffer.from(eventId).toString('base64url')}`,
    };
    const headers: Record<string, string> = {};
    if (o.retryNum !== undefined) {
      headers['X-Slack-Retry-Num'] = String(o.retryNum);
      headers['X-Slack-Retry-Reason'] = o.retryReason ?? 'http_timeout';
    }
    return this.postJson(envelope, headers);
  }

  private async postJson(body: Json, extra: Record<string, string> = {}): Promise<DriverResponse> {
    const text = JSON.stringify(body);
    return this.raw(text, { 'Content-Type': 'application/json', 'User-Agent': SLACK_USER_AGENT, ...this.sign(text), ...extra });
  }

  private async postForm(body: string): Promise<DriverResponse> {
    return this.raw(body, { 'Content-Type': 'application/x-www-form-urlencoded', 'User-Agent': SLACK_USER_AGENT, ...this.sign(body) });
  }
}
