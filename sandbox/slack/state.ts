/**
 * The workspace state the fake Slack's Web API methods work on: who is in it (users, channels, the
 * bot's ids), what was posted (messages, views, uploads), the trigger_ids and response_urls it handed
 * out, and Slack's id and `ts` generation. Also the JSON shapes Slack answers with for messages and files.
 */
import { DEFAULT_CHANNELS, DEFAULT_USERGROUPS, DEFAULT_USERS, resolveMembers } from './defaults.js';
import { fail, str, type Json } from './method.js';
import type {
  FakeChannel,
  FakeEnterprise,
  FakeSlackOptions,
  FakeUser,
  FakeUsergroup,
  RecordedView,
  ResponseUrlContext,
  SlackFileRef,
  SlackMessage,
  SlackMessageSource,
  TokenIdentity,
  UserFileInput,
} from './types.js';
import { fileJson, messageJson, permalink, type MessageJsonOptions } from './wire.js';

/** A person's message as {@link SlackState.addUserMessage} records it. */
export interface UserMessageInput {
  channel: string;
  user: string;
  text: string;
  thread_ts?: string;
  source?: 'human' | 'command';
  files?: UserFileInput[];
}

/** Format a microsecond count as a Slack ts ("1700000000.000100"). */
function formatTs(micros: number): string {
  const seconds = Math.floor(micros / 1_000_000);
  const micro = micros % 1_000_000;
  return `${seconds}.${String(micro).padStart(6, '0')}`;
}

/** How long a trigger_id can be exchanged after it was minted, in ms (Slack: "They expire in three seconds"). */
export const TRIGGER_TTL_MS = 3_000;

/** Shared state of one fake Slack workspace; the method families read and change it. */
export class SlackState {
  /** "http://127.0.0.1:PORT" once the server listens (upload and response URLs are built on it). */
  origin = '';
  readonly teamId: string;
  readonly teamDomain: string;
  readonly enterprise: FakeEnterprise | undefined;
  readonly botUserId: string;
  readonly botId: string;
  readonly appId: string;
  readonly users: FakeUser[];
  readonly channels: FakeChannel[];
  readonly usergroups: FakeUsergroup[];
  readonly messages: SlackMessage[] = [];
  readonly views: RecordedView[] = [];
  readonly uploads = new Map<string, { filename: string; length: number; bytes?: Buffer }>();
  /** Clock in epoch ms. */
  readonly now: () => number;
  /**
   * Who the method being answered was called by, when its token is an OAuth install's
   * (installs.ts); undefined for the fake's own bot token. Set by the server around each call.
   */
  caller: TokenIdentity | undefined;

  private readonly responseUrls = new Map<string, ResponseUrlContext>();
  private readonly triggers = new Map<string, { user: string; mintedAt: number; exchanged: boolean }>();
  private lastMicros = 0;
  private seq = 0;

  constructor(opts: FakeSlackOptions) {
    this.teamId = opts.teamId ?? 'T0SANDBOX';
    this.teamDomain = opts.teamDomain ?? 'sandbox';
    // A copy: the driver's team_access events change the granted workspaces of this fake only.
    this.enterprise = opts.enterprise
      ? { ...opts.enterprise, teams: opts.enterprise.teams.map((t) => ({ ...t })) }
      : undefined;
    this.botUserId = opts.botUserId ?? 'U0DOCSBOT';
    this.botId = opts.botId ?? 'B0DOCSBOT';
    this.appId = opts.appId ?? 'A0DOCSAPP';
    this.now = opts.now ?? Date.now;
    this.users = (opts.users ?? DEFAULT_USERS).map((u) => ({ ...u }));
    if (!this.users.some((u) => u.id === this.botUserId)) {
      this.users.push({
        id: this.botUserId,
        name: 'docs-agent',
        realName: 'Docs Agent',
        tz: 'UTC',
        tzOffset: 0,
        isBot: true,
      });
    }
    this.channels = (opts.channels ?? DEFAULT_CHANNELS).map((c) => ({
      ...c,
      ...(c.members ? { members: c.members.map((m) => (m === '@bot' ? this.botUserId : m)) } : {}),
    }));
    this.usergroups = (opts.usergroups ?? DEFAULT_USERGROUPS).map((g) => ({ ...g, members: [...g.members] }));
  }

  // ---------------------------------------------------------------- ids, ts, triggers, response_urls

  /** A fresh positive integer, unique within this fake (for view, file, trigger and response_url ids). */
  nextId(): number {
    this.seq += 1;
    return this.seq;
  }

  /** A fresh ts from the clock, strictly increasing even when the clock stands still. */
  nextTs(): string {
    let micros = Math.floor(this.now()) * 1000;
    if (micros <= this.lastMicros) micros = this.lastMicros + 1;
    this.lastMicros = micros;
    return formatTs(micros);
  }

  /** See {@link FakeSlack.responseUrl}. */
  responseUrl(id?: string, context: ResponseUrlContext = {}): string {
    const key = id ?? `R${this.nextId()}`;
    this.responseUrls.set(key, context);
    return `${this.origin}/response/${encodeURIComponent(key)}`;
  }

  /** The context a response_url id was minted with, or undefined for an unknown id. */
  responseUrlContext(id: string): ResponseUrlContext | undefined {
    return this.responseUrls.get(id);
  }

  /** See {@link FakeSlack.triggerId}. */
  triggerId(user: string): string {
    const n = this.nextId();
    const id = `${1000 + n}.${7000000 + n}.${n.toString(16).padStart(32, '0')}`;
    this.triggers.set(id, { user, mintedAt: this.now(), exchanged: false });
    return id;
  }

  /**
   * Exchanges a trigger_id for the user it was minted for: once, within {@link TRIGGER_TTL_MS} of
   * minting by the fake's clock (Slack docs, "Sequencing interactions with triggers": "They expire in
   * three seconds", "they can be used only once"; views.open / views.push error tables).
   * @throws `invalid_trigger_id` (never minted), `expired_trigger_id`, `exchanged_trigger_id`.
   */
  exchangeTrigger(triggerId: string): string {
    const t = this.triggers.get(triggerId) ?? fail('invalid_trigger_id');
    if (this.now() - t.mintedAt > TRIGGER_TTL_MS) fail('expired_trigger_id');
    if (t.exchanged) fail('exchanged_trigger_id');
    t.exchanged = true;
    return t.user;
  }

  /** The user a trigger_id was minted for (used or not), or undefined for an unknown trigger_id. */
  triggerUser(triggerId: string): string | undefined {
    return this.triggers.get(triggerId)?.user;
  }

  // ---------------------------------------------------------------- directory

  /** The member with user id `id`, if any. */
  user(id: unknown): FakeUser | undefined {
    return typeof id === 'string' ? this.users.find((u) => u.id === id) : undefined;
  }

  /** Resolve a channel argument: an id, a name ("docs" / "#docs"), or a user id (→ that user's IM, opened on demand). */
  channel(ref: unknown): FakeChannel | undefined {
    const value = str(ref);
    if (!value) return undefined;
    const name = value.startsWith('#') ? value.slice(1) : value;
    const found = this.channels.find((c) => c.id === value || (!c.isIm && c.name === name));
    if (found) return found;
    const u = this.user(value);
    return u ? this.openIm(u) : undefined;
  }

  /** The bot's IM with `u`, created ("D" + the user id without its U/W) when there is none yet. */
  openIm(u: FakeUser): FakeChannel {
    const existing = this.channels.find((c) => c.isIm && c.user === u.id);
    if (existing) return existing;
    const im: FakeChannel = {
      id: `D${u.id.replace(/^[UW]/, '')}`,
      name: u.name,
      botIsMember: true,
      isIm: true,
      user: u.id,
    };
    this.channels.push(im);
    return im;
  }

  /** User ids of `ch`'s members (see {@link FakeChannel.members}), the bot included when it is a member. */
  members(ch: FakeChannel): string[] {
    return resolveMembers(ch, this.users, this.botUserId);
  }

  /**
   * The channel `ref` names, as the bot can see it.
   * A private channel or IM the bot is not in does not exist for it (`channel_not_found`, Slack docs:
   * conversations.* "channel_not_found: Value passed for channel was invalid"); a public channel it is
   * not in answers `not_in_channel` where membership is needed (chat.postMessage docs; and for
   * conversations.history/.replies, the `channels:history` scope only covers channels the bot is in,
   * Slack's answer to deno-slack-sdk#128).
   * @throws `channel_not_found`, or `not_in_channel` when `needMembership` and the bot is not a member.
   */
  requireChannel(ref: unknown, needMembership = true): FakeChannel {
    const ch = this.channel(ref) ?? fail('channel_not_found');
    if (!ch.botIsMember && (ch.isPrivate || ch.isIm || ch.isMpim)) fail('channel_not_found');
    if (needMembership && !ch.botIsMember) fail('not_in_channel');
    return ch;
  }

  /**
   * The live, non-ephemeral message with ts `ts` in `ch`.
   * @throws `message_not_found`.
   */
  requireMessage(ch: FakeChannel, ts: unknown): SlackMessage {
    const t = str(ts) ?? fail('message_not_found');
    return (
      this.messages.find((m) => m.channel === ch.id && m.ts === t && !m.deleted && !m.ephemeralTo) ??
      fail('message_not_found')
    );
  }

  // ---------------------------------------------------------------- messages

  /** See {@link FakeSlack.addUserMessage}. */
  addUserMessage(m: UserMessageInput): SlackMessage {
    const msg: SlackMessage = {
      channel: m.channel,
      ts: this.nextTs(),
      user: m.user,
      text: m.text,
      reactions: [],
      source: m.source ?? 'human',
      ...(m.thread_ts ? { thread_ts: m.thread_ts } : {}),
      ...(m.files?.length ? { files: m.files.map((f) => this.userFile(m.user, f)) } : {}),
    };
    this.messages.push(msg);
    return msg;
  }

  /** A person's upload: a fresh file id, bytes from `content`, title defaulting to the name. */
  private userFile(user: string, f: UserFileInput): SlackFileRef {
    const bytes = typeof f.content === 'string' ? Buffer.from(f.content) : (f.content ?? Buffer.alloc(0));
    const id = `F${String(this.nextId()).padStart(10, '0')}`;
    return {
      id,
      name: f.name,
      title: f.title ?? f.name,
      size: bytes.length,
      bytes,
      user,
      ...(f.mimetype ? { mimetype: f.mimetype } : {}),
    };
  }

  /** A file of any live message by id (uploads by the bot and people alike). */
  findFile(id: string): SlackFileRef | undefined {
    for (const m of this.messages) {
      const f = m.files?.find((x) => x.id === id);
      if (f && !m.deleted) return f;
    }
    return undefined;
  }

  /** See {@link FakeSlack.findMessage}. */
  findMessage(channel: string, ts: string): SlackMessage | undefined {
    return this.messages.find((m) => m.channel === channel && m.ts === ts && !m.deleted);
  }

  /** A new (not yet recorded) bot message in `ch` from `text`, `blocks` (empty → none) and `thread_ts` arguments. */
  botMessage(ch: FakeChannel, args: Json, source: SlackMessageSource): SlackMessage {
    const text = typeof args.text === 'string' ? args.text : '';
    const blocks = Array.isArray(args.blocks) && args.blocks.length > 0 ? (args.blocks as unknown[]) : undefined;
    const threadTs = str(args.thread_ts);
    return {
      channel: ch.id,
      ts: this.nextTs(),
      user: this.botUserId,
      bot_id: this.botId,
      text,
      reactions: [],
      source,
      ...(blocks ? { blocks } : {}),
      ...(threadTs ? { thread_ts: threadTs } : {}),
    };
  }

  // ---------------------------------------------------------------- wire shapes (see ./wire.ts)

  /** A message as the Web API returns it (`chat.postMessage`'s `message`, `conversations.history`). */
  messageJson(m: SlackMessage, opts?: MessageJsonOptions): Json {
    return messageJson(this, m, opts);
  }

  /** A file object as the Web API returns it (`files.completeUploadExternal`, message `files`). */
  fileJson(f: SlackFileRef): Json {
    return fileJson(this, f);
  }

  /** `https://<domain>.slack.com/archives/<channel>/p<ts without dot>`, plus `?thread_ts=<root>&cid=<channel>` for thread replies. */
  permalink(m: SlackMessage): string {
    return permalink(this, m);
  }
}
