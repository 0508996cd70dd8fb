/**
 * A faithful, in-process fake of the Slack Web API for the sandbox and the end-to-end tests.
 *
 * It speaks HTTP exactly like `https://slack.com/api/` as far as `@slack/web-api`'s `WebClient`
 * (and therefore Bolt) can tell:
 *
 * - `POST /api/<method>` with `application/x-www-form-urlencoded` (WebClient's default: objects and
 *   arrays such as `blocks`, `view`, `files` arrive JSON-encoded inside form fields), `application/json`
 *   or `multipart/form-data` bodies; query-string arguments are honoured too.
 * - The token comes from `Authorization: Bearer <token>` (what WebClient sends) or a `token` argument.
 * - Every answer is HTTP 200 with `{ ok: true, ... }` or `{ ok: false, error }`, except injected rate
 *   limits, which are HTTP 429 with a `Retry-After: <seconds>` header (Slack docs: "Rate limits").
 * - `files.uploadV2`'s three steps work: `files.getUploadURLExternal` hands out an `upload_url` served
 *   here (`POST /upload/<file_id>`, WebClient sends the bytes as multipart field `body`), then
 *   `files.completeUploadExternal` shares the file into a channel as a message.
 * - `response_url`s for slash commands and interactivity are served at `POST /response/<id>` and take
 *   the JSON body Bolt's `respond()` sends.
 *
 * Units used throughout: Slack `ts` strings ("1700000000.000100", seconds with 6-digit micro part),
 * `at`/clock values in epoch milliseconds.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A workspace member known to the fake (`users.info`). `tzOffset` is in seconds east of UTC, like Slack's `tz_offset`. */
export interface FakeUser {
  id: string;
  name: string;
  realName?: string;
  tz?: string;
  tzOffset?: number;
  isBot?: boolean;
}

/** A conversation known to the fake. `user` is the other party of an IM (`isIm`). */
export interface FakeChannel {
  id: string;
  name: string;
  botIsMember: boolean;
  isIm?: boolean;
  user?: string;
}

/** Options of {@link startFakeSlack}. */
export interface FakeSlackOptions {
  /** TCP port to listen on, on 127.0.0.1. Default 0 (an ephemeral port). */
  port?: number;
  /** The only accepted token. Missing token → `not_authed`, any other token → `invalid_auth`. */
  botToken: string;
  /** Default "T0SANDBOX". */
  teamId?: string;
  /** The bot's user id. Default "U0DOCSBOT". */
  botUserId?: string;
  /** The bot's bot id (`bot_id` on its messages). Default "B0DOCSBOT". */
  botId?: string;
  /** The app id (`api_app_id`). Default "A0DOCSAPP". */
  appId?: string;
  /** Workspace domain used in permalinks and `auth.test`'s url. Default "sandbox". */
  teamDomain?: string;
  /**
   * Workspace members. Default: U0ALICE "alice" (Europe/Berlin), U0BOB "bob" (America/New_York),
   * U0CAROL "carol" (Asia/Tokyo). The bot user is always added.
   */
  users?: FakeUser[];
  /** Conversations. Default: C0DOCS "docs" (bot member), C0RANDOM "random" (not a member), D0ALICE (IM with alice). */
  channels?: FakeChannel[];
  /** Clock in epoch milliseconds, used for message `ts` and call times. Default `Date.now`. */
  now?: () => number;
}

/** One recorded HTTP call to the fake. `at` is epoch ms (from `opts.now`); `status` is the HTTP status returned. */
export interface SlackCall {
  /** Web API method ("chat.postMessage"), or the pseudo methods "response_url" and "file_upload" for POSTs to those URLs. */
  method: string;
  /** Parsed arguments with JSON-encoded fields decoded; the token is never recorded. */
  args: Record<string, unknown>;
  at: number;
  response: unknown;
  status: number;
  /** For HTTP 429 answers: the `Retry-After` value sent, in seconds. */
  retryAfterS?: number;
}

/** A file shared into a message via `files.completeUploadExternal`. `size` is in bytes. */
export interface SlackFileRef {
  id: string;
  name: string;
  title: string;
  size: number;
  bytes: Buffer;
}

/** Where a recorded message came from. */
export type SlackMessageSource = 'api' | 'human' | 'command' | 'response_url' | 'file_share';

/** Channel state: one message as a person in Slack would see it (updates modify it in place). */
export interface SlackMessage {
  channel: string;
  /** Slack timestamp string, unique per fake, e.g. "1700000000.000100". */
  ts: string;
  thread_ts?: string;
  user?: string;
  bot_id?: string;
  text: string;
  blocks?: unknown[];
  edited?: boolean;
  /** Names of reactions the bot added (without colons), in order. */
  reactions: string[];
  /** Set for ephemeral messages: the only user who can see it. */
  ephemeralTo?: string;
  files?: SlackFileRef[];
  deleted?: boolean;
  source: SlackMessageSource;
}

/** A view published (`views.publish`) or opened/pushed/updated (`views.open` / `views.push` / `views.update`). */
export interface RecordedView {
  id: string;
  kind: 'home' | 'modal';
  /** Owner: `user_id` for home tabs, the user the trigger was minted for when opening modals. */
  userId?: string;
  triggerId?: string;
  view: Record<string, unknown>;
  hash: string;
  method: string;
}

/** Context the fake needs to act on a `response_url` post like Slack does. */
export interface ResponseUrlContext {
  /** The user who triggered the interaction: ephemeral replies are only visible to them. */
  user?: string;
  channel?: string;
  /** ts of the message the interaction came from (for `replace_original` / `delete_original`). */
  messageTs?: string;
  threadTs?: string;
}

/** A failure injected with {@link FakeSlack.failNext}. `retryAfterS` is in seconds. */
export type SlackFailure = { status: 429; retryAfterS: number } | { error: string };

/** Handle of a running fake Slack. */
export interface FakeSlack {
  /** Web API base with trailing slash, e.g. "http://127.0.0.1:PORT/api/" — give it to the bot as SLACK_API_URL. */
  url: string;
  /** "http://127.0.0.1:PORT". */
  origin: string;
  teamId: string;
  teamDomain: string;
  botUserId: string;
  botId: string;
  appId: string;
  users: FakeUser[];
  channels: FakeChannel[];
  /** Every call in order. */
  calls: SlackCall[];
  /** Channel state in posting order (including ephemerals, response_url replies and humans' messages). */
  messages: SlackMessage[];
  /** Views published or opened, in order. */
  views: RecordedView[];
  /** Bytes received on upload URLs, by file id. */
  uploads: Map<string, { filename: string; length: number; bytes?: Buffer }>;
  /**
   * A `response_url` served by the fake (`${origin}/response/<id>`). POSTs to it (JSON: text, blocks,
   * response_type "ephemeral" (default) | "in_channel", replace_original, delete_original, thread_ts) are
   * recorded into `messages`: ephemeral ones with `ephemeralTo = context.user`, in_channel ones as bot
   * messages in `context.channel`.
   */
  responseUrl(id?: string, context?: ResponseUrlContext): string;
  /** Mint a trigger_id for `user` (what Slack puts in slash commands and interactions); `views.open` accepts only minted ones. */
  triggerId(user: string): string;
  /** Record a human's message with a fresh ts and return it (the driver uses it so transcripts show what people typed). */
  addUserMessage(m: { channel: string; user: string; text: string; thread_ts?: string; source?: 'human' | 'command' }): SlackMessage;
  /** Find a live (not deleted) message by channel and ts. */
  findMessage(channel: string, ts: string): SlackMessage | undefined;
  /**
   * Make the next `times` (default 1) calls to `method` fail: `{status: 429, retryAfterS}` answers HTTP 429
   * with `Retry-After` and body `{ok:false,error:"ratelimited"}`; `{error}` answers HTTP 200 `{ok:false,error}`.
   * Only authenticated calls consume an injected failure.
   */
  failNext(method: string, failure: SlackFailure, times?: number): void;
  /** Subscribe to calls as they are recorded (for the sandbox's live log). Returns an unsubscribe function. */
  onCall(cb: (call: SlackCall) => void): () => void;
  /**
   * Poll `fn` every ~20 ms until it returns something truthy and resolve with that value.
   * Rejects after `timeoutMs` (default 5000) with the last thrown error (if any) and the recent calls.
   */
  waitFor<T>(fn: () => T | undefined | null | false, timeoutMs?: number): Promise<T>;
  /** Stop the server (open connections are closed). */
  close(): Promise<void>;
}

const DEFAULT_USERS: FakeUser[] = [
  { id: 'U0ALICE', name: 'alice', realName: 'Alice Adams', tz: 'Europe/Berlin', tzOffset: 3600 },
  { id: 'U0BOB', name: 'bob', realName: 'Bob Brown', tz: 'America/New_York', tzOffset: -18000 },
  { id: 'U0CAROL', name: 'carol', realName: 'Carol Chen', tz: 'Asia/Tokyo', tzOffset: 32400 },
];

const DEFAULT_CHANNELS: FakeChannel[] = [
  { id: 'C0DOCS', name: 'docs', botIsMember: true },
  { id: 'C0RANDOM', name: 'random', botIsMember: false },
  { id: 'D0ALICE', name: 'alice', botIsMember: true, isIm: true, user: 'U0ALICE' },
];

/** Form fields WebClient JSON-encodes (it JSON-encodes every non-primitive argument). */
const JSON_FIELDS = new Set(['blocks', 'attachments', 'view', 'files', 'metadata', 'unfurls', 'user_auth_blocks']);

type Json = Record<string, unknown>;
type ApiResult = { status: number; body: unknown; headers?: Record<string, string> };
type Handler = (args: Json) => Json;

class SlackApiError extends Error {
  constructor(readonly code: string) {
    super(code);
  }
}

const fail = (code: string): never => {
  throw new SlackApiError(code);
};

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** Format a microsecond count as a Slack ts ("1700000000.000100"). */
function formatTs(micros: number): string {
  const seconds = Math.floor(micros / 1_000_000);
  const micro = micros % 1_000_000;
  return `${seconds}.${String(micro).padStart(6, '0')}`;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks);
}

function decodeField(key: string, value: string): unknown {
  if (!JSON_FIELDS.has(key)) return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

async function parseForm(contentType: string, raw: Buffer): Promise<FormData> {
  // undici's Request parses multipart bodies exactly like a server would.
  return new Request('http://fake.invalid/', { method: 'POST', headers: { 'content-type': contentType }, body: raw }).formData();
}

async function parseArgs(req: IncomingMessage, raw: Buffer, url: URL): Promise<Json> {
  const args: Json = {};
  for (const [k, v] of url.searchParams) args[k] = decodeField(k, v);
  const contentType = req.headers['content-type'] ?? '';
  const lower = contentType.toLowerCase();
  if (raw.length === 0) return args;
  if (lower.startsWith('application/json')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw.toString('utf8'));
    } catch {
      throw new SlackApiError('invalid_json');
    }
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) Object.assign(args, parsed);
  } else if (lower.startsWith('multipart/form-data')) {
    const form = await parseForm(contentType, raw);
    for (const [k, v] of form) args[k] = typeof v === 'string' ? decodeField(k, v) : Buffer.from(await v.arrayBuffer());
  } else {
    for (const [k, v] of new URLSearchParams(raw.toString('utf8'))) args[k] = decodeField(k, v);
  }
  return args;
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

function sendText(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

class FakeSlackServer implements FakeSlack {
  url = '';
  origin = '';
  readonly teamId: string;
  readonly teamDomain: string;
  readonly botUserId: string;
  readonly botId: string;
  readonly appId: string;
  readonly users: FakeUser[];
  readonly channels: FakeChannel[];
  readonly calls: SlackCall[] = [];
  readonly messages: SlackMessage[] = [];
  readonly views: RecordedView[] = [];
  readonly uploads = new Map<string, { filename: string; length: number; bytes?: Buffer }>();

  private readonly server: Server;
  private readonly now: () => number;
  private readonly listeners = new Set<(call: SlackCall) => void>();
  private readonly failures = new Map<string, Array<{ failure: SlackFailure; remaining: number }>>();
  private readonly responseUrls = new Map<string, ResponseUrlContext>();
  private readonly triggers = new Map<string, string>();
  private readonly handlers: Record<string, Handler>;
  private lastMicros = 0;
  private seq = 0;

  constructor(private readonly opts: FakeSlackOptions) {
    this.teamId = opts.teamId ?? 'T0SANDBOX';
    this.teamDomain = opts.teamDomain ?? 'sandbox';
    this.botUserId = opts.botUserId ?? 'U0DOCSBOT';
    this.botId = opts.botId ?? 'B0DOCSBOT';
    this.appId = opts.appId ?? 'A0DOCSAPP';
    this.now = opts.now ?? Date.now;
    this.users = (opts.users ?? DEFAULT_USERS).map((u) => ({ ...u }));
    if (!this.users.some((u) => u.id === this.botUserId)) {
      this.users.push({ id: this.botUserId, name: 'docs-agent', realName: 'Docs Agent', tz: 'UTC', tzOffset: 0, isBot: true });
    }
    this.channels = (opts.channels ?? DEFAULT_CHANNELS).map((c) => ({ ...c }));
    this.handlers = this.buildHandlers();
    this.server = createServer((req, res) => {
      this.route(req, res).catch((err: unknown) => {
        if (!res.headersSent) sendJson(res, 500, { ok: false, error: 'fatal_error', detail: String(err) });
        else res.end();
      });
    });
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.opts.port ?? 0, '127.0.0.1', () => resolve());
    });
    const { port } = this.server.address() as AddressInfo;
    this.origin = `http://127.0.0.1:${port}`;
    this.url = `${this.origin}/api/`;
  }

  // ---------------------------------------------------------------- public API

  responseUrl(id?: string, context: ResponseUrlContext = {}): string {
    const key = id ?? `R${this.nextId()}`;
    this.responseUrls.set(key, context);
    return `${this.origin}/response/${encodeURIComponent(key)}`;
  }

  triggerId(user: string): string {
    const n = this.nextId();
    const id = `${1000 + n}.${7000000 + n}.${n.toString(16).padStart(32, '0')}`;
    this.triggers.set(id, user);
    return id;
  }

  addUserMessage(m: { channel: string; user: string; text: string; thread_ts?: string; source?: 'human' | 'command' }): SlackMessage {
    const msg: SlackMessage = {
      channel: m.channel,
      ts: this.nextTs(),
      user: m.user,
      text: m.text,
      reactions: [],
      source: m.source ?? 'human',
      ...(m.thread_ts ? { thread_ts: m.thread_ts } : {}),
    };
    this.messages.push(msg);
    return msg;
  }

  findMessage(channel: string, ts: string): SlackMessage | undefined {
    return this.messages.find((m) => m.channel === channel && m.ts === ts && !m.deleted);
  }

  failNext(method: string, failure: SlackFailure, times = 1): void {
    const queue = this.failures.get(method) ?? [];
    queue.push({ failure, remaining: times });
    this.failures.set(method, queue);
  }

  onCall(cb: (call: SlackCall) => void): () => void {
    this.listeners.add(cb);
    return () => this.listeners.delete(cb);
  }

  async waitFor<T>(fn: () => T | undefined | null | false, timeoutMs = 5000): Promise<T> {
    const started = Date.now();
    let lastError: unknown;
    for (;;) {
      try {
        const value = fn();
        if (value) return value;
        lastError = undefined;
      } catch (err) {
        lastError = err;
      }
      if (Date.now() - started >= timeoutMs) {
        const recent = this.calls
          .slice(-10)
          .map((c) => `  ${c.status} ${c.method} ${JSON.stringify(c.args).slice(0, 160)} -> ${JSON.stringify(c.response).slice(0, 120)}`)
          .join('\n');
        const reason = lastError instanceof Error ? `; last error: ${lastError.message}` : '';
        throw new Error(
          `fake Slack waitFor timed out after ${timeoutMs} ms waiting for ${fn.toString().slice(0, 200)}${reason}\n` +
            `${this.calls.length} calls recorded, last ones:\n${recent || '  (none)'}`,
        );
      }
      await sleep(20);
    }
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  // ---------------------------------------------------------------- HTTP routing

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.origin || 'http://127.0.0.1');
    const raw = await readBody(req);
    const apiMatch = /^\/api\/([A-Za-z0-9_.]+)$/.exec(url.pathname);
    if (apiMatch?.[1]) {
      const result = await this.api(apiMatch[1], req, raw, url);
      sendJson(res, result.status, result.body, result.headers);
      return;
    }
    const responseMatch = /^\/response\/([^/]+)$/.exec(url.pathname);
    if (responseMatch?.[1] && req.method === 'POST') {
      const result = this.responseUrlPost(decodeURIComponent(responseMatch[1]), raw);
      sendJson(res, result.status, result.body);
      return;
    }
    const uploadMatch = /^\/upload\/([^/]+)$/.exec(url.pathname);
    if (uploadMatch?.[1] && req.method === 'POST') {
      const { status, text } = await this.upload(decodeURIComponent(uploadMatch[1]), req, raw);
      sendText(res, status, text);
      return;
    }
    sendText(res, 404, 'not found');
  }

  private async api(method: string, req: IncomingMessage, raw: Buffer, url: URL): Promise<ApiResult> {
    let args: Json;
    try {
      args = await parseArgs(req, raw, url);
    } catch (err) {
      const error = err instanceof SlackApiError ? err.code : 'invalid_form_data';
      return this.record(method, {}, { status: 200, body: { ok: false, error } });
    }
    const auth = req.headers.authorization;
    const bearer = auth?.startsWith('Bearer ') ? auth.slice('Bearer '.length).trim() : undefined;
    const token = bearer ?? str(args.token);
    delete args.token;
    if (!token) return this.record(method, args, { status: 200, body: { ok: false, error: 'not_authed' } });
    if (token !== this.opts.botToken) return this.record(method, args, { status: 200, body: { ok: false, error: 'invalid_auth' } });

    const injected = this.takeFailure(method);
    if (injected) {
      if ('status' in injected) {
        return this.record(method, args, {
          status: 429,
          body: { ok: false, error: 'ratelimited' },
          headers: { 'retry-after': String(injected.retryAfterS) },
        });
      }
      return this.record(method, args, { status: 200, body: { ok: false, error: injected.error } });
    }

    const handler = this.handlers[method];
    if (!handler) return this.record(method, args, { status: 200, body: { ok: false, error: 'unknown_method' } });
    try {
      return this.record(method, args, { status: 200, body: handler(args) });
    } catch (err) {
      if (err instanceof SlackApiError) return this.record(method, args, { status: 200, body: { ok: false, error: err.code } });
      throw err;
    }
  }

  private record(method: string, args: Json, result: ApiResult): ApiResult {
    const call: SlackCall = { method, args, at: this.now(), response: result.body, status: result.status };
    const retryAfter = result.headers?.['retry-after'];
    if (retryAfter !== undefined) call.retryAfterS = Number(retryAfter);
    this.calls.push(call);
    for (const listener of this.listeners) {
      try {
        listener(call);
      } catch {
        // a broken live printer must not break the fake
      }
    }
    return result;
  }

  private takeFailure(method: string): SlackFailure | undefined {
    const queue = this.failures.get(method);
    const head = queue?.[0];
    if (!queue || !head) return undefined;
    head.remaining -= 1;
    if (head.remaining <= 0) queue.shift();
    return head.failure;
  }

  // ---------------------------------------------------------------- helpers

  private nextId(): number {
    this.seq += 1;
    return this.seq;
  }

  /** A fresh ts from the clock, strictly increasing even when the clock stands still. */
  private nextTs(): string {
    let micros = Math.floor(this.now()) * 1000;
    if (micros <= this.lastMicros) micros = this.lastMicros + 1;
    this.lastMicros = micros;
    return formatTs(micros);
  }

  private user(id: unknown): FakeUser | undefined {
    return typeof id === 'string' ? this.users.find((u) => u.id === id) : undefined;
  }

  /** Resolve a channel argument: an id, a name ("docs" / "#docs"), or a user id (→ that user's IM, opened on demand). */
  private channel(ref: unknown): FakeChannel | undefined {
    const value = str(ref);
    if (!value) return undefined;
    const name = value.startsWith('#') ? value.slice(1) : value;
    const found = this.channels.find((c) => c.id === value || (!c.isIm && c.name === name));
    if (found) return found;
    const u = this.user(value);
    return u ? this.openIm(u) : undefined;
  }

  private openIm(u: FakeUser): FakeChannel {
    const existing = this.channels.find((c) => c.isIm && c.user === u.id);
    if (existing) return existing;
    const im: FakeChannel = { id: `D${u.id.replace(/^[UW]/, '')}`, name: u.name, botIsMember: true, isIm: true, user: u.id };
    this.channels.push(im);
    return im;
  }

  private requireChannel(ref: unknown, needMembership = true): FakeChannel {
    const ch = this.channel(ref) ?? fail('channel_not_found');
    if (needMembership && !ch.botIsMember) fail('not_in_channel');
    return ch;
  }

  private requireMessage(ch: FakeChannel, ts: unknown): SlackMessage {
    const t = str(ts) ?? fail('message_not_found');
    return this.messages.find((m) => m.channel === ch.id && m.ts === t && !m.deleted && !m.ephemeralTo) ?? fail('message_not_found');
  }

  private messageJson(m: SlackMessage): Json {
    return {
      type: 'message',
      ...(m.user ? { user: m.user } : {}),
      ...(m.bot_id ? { bot_id: m.bot_id, app_id: this.appId } : {}),
      text: m.text,
      ts: m.ts,
      team: this.teamId,
      ...(m.thread_ts ? { thread_ts: m.thread_ts } : {}),
      ...(m.blocks ? { blocks: m.blocks } : {}),
      ...(m.edited ? { edited: { user: m.user ?? this.botUserId, ts: m.ts } } : {}),
      ...(m.reactions.length ? { reactions: m.reactions.map((name) => ({ name, users: [this.botUserId], count: 1 })) } : {}),
      ...(m.files ? { files: m.files.map((f) => this.fileJson(f)) } : {}),
    };
  }

  private fileJson(f: SlackFileRef): Json {
    return {
      id: f.id,
      name: f.name,
      title: f.title,
      size: f.size,
      user: this.botUserId,
      permalink: `https://${this.teamDomain}.slack.com/files/${this.botUserId}/${f.id}/${encodeURIComponent(f.name)}`,
    };
  }

  private permalink(m: SlackMessage): string {
    const base = `https://${this.teamDomain}.slack.com/archives/${m.channel}/p${m.ts.replace('.', '')}`;
    return m.thread_ts && m.thread_ts !== m.ts ? `${base}?thread_ts=${m.thread_ts}&cid=${m.channel}` : base;
  }

  private botMessage(ch: FakeChannel, args: Json, source: SlackMessageSource): SlackMessage {
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

  private viewJson(id: string, view: Json, hash: string): Json {
    return {
      id,
      team_id: this.teamId,
      type: view.type ?? 'modal',
      blocks: view.blocks ?? [],
      private_metadata: view.private_metadata ?? '',
      callback_id: view.callback_id ?? '',
      state: { values: {} },
      hash,
      title: view.title ?? null,
      close: view.close ?? null,
      submit: view.submit ?? null,
      clear_on_close: false,
      notify_on_close: false,
      previous_view_id: null,
      root_view_id: id,
      app_id: this.appId,
      external_id: view.external_id ?? '',
      app_installed_team_id: this.teamId,
      bot_id: this.botId,
    };
  }

  private recordView(method: string, kind: 'home' | 'modal', view: unknown, extra: { userId?: string; triggerId?: string; id?: string }): Json {
    if (!view || typeof view !== 'object' || Array.isArray(view)) fail('invalid_arguments');
    const v = view as Json;
    const id = extra.id ?? `V${String(this.nextId()).padStart(8, '0')}`;
    const hash = `${Math.floor(this.now() / 1000)}.${String(this.nextId()).padStart(8, '0')}`;
    const recorded: RecordedView = { id, kind, view: v, hash, method };
    if (extra.userId) recorded.userId = extra.userId;
    if (extra.triggerId) recorded.triggerId = extra.triggerId;
    this.views.push(recorded);
    return { ok: true, view: this.viewJson(id, v, hash) };
  }

  private latestView(id: string | undefined, externalId: string | undefined): RecordedView | undefined {
    for (let i = this.views.length - 1; i >= 0; i -= 1) {
      const v = this.views[i];
      if (v && ((id && v.id === id) || (externalId && v.view.external_id === externalId))) return v;
    }
    return undefined;
  }

  // ---------------------------------------------------------------- Web API methods

  private buildHandlers(): Record<string, Handler> {
    return {
      'api.test': (args) => ({ ok: true, args }),

      'auth.test': () => ({
        ok: true,
        url: `https://${this.teamDomain}.slack.com/`,
        team: 'Sandbox',
        user: this.user(this.botUserId)?.name ?? 'docs-agent',
        team_id: this.teamId,
        user_id: this.botUserId,
        bot_id: this.botId,
        app_id: this.appId,
        is_enterprise_install: false,
      }),

      'chat.postMessage': (args) => {
        const ch = this.requireChannel(args.channel);
        if (typeof args.text !== 'string' && !Array.isArray(args.blocks) && !Array.isArray(args.attachments)) fail('no_text');
        const msg = this.botMessage(ch, args, 'api');
        this.messages.push(msg);
        return { ok: true, channel: ch.id, ts: msg.ts, message: this.messageJson(msg) };
      },

      'chat.update': (args) => {
        const ch = this.requireChannel(args.channel, false);
        const msg = this.requireMessage(ch, args.ts);
        if (msg.user !== this.botUserId) fail('cant_update_message');
        if (typeof args.text === 'string') msg.text = args.text;
        // Slack docs (chat.update): omitted blocks are retained; an empty array removes them.
        if (Array.isArray(args.blocks)) {
          if (args.blocks.length > 0) msg.blocks = args.blocks as unknown[];
          else delete msg.blocks;
        }
        msg.edited = true;
        return { ok: true, channel: ch.id, ts: msg.ts, text: msg.text, message: this.messageJson(msg) };
      },

      'chat.delete': (args) => {
        const ch = this.requireChannel(args.channel, false);
        const msg = this.requireMessage(ch, args.ts);
        if (msg.user !== this.botUserId) fail('cant_delete_message');
        msg.deleted = true;
        return { ok: true, channel: ch.id, ts: msg.ts };
      },

      'chat.postEphemeral': (args) => {
        const ch = this.requireChannel(args.channel);
        const u = this.user(args.user) ?? fail('user_not_found');
        if (typeof args.text !== 'string' && !Array.isArray(args.blocks) && !Array.isArray(args.attachments)) fail('no_text');
        const msg = this.botMessage(ch, args, 'api');
        msg.ephemeralTo = u.id;
        this.messages.push(msg);
        return { ok: true, message_ts: msg.ts };
      },

      'chat.getPermalink': (args) => {
        const ch = this.requireChannel(args.channel, false);
        const msg = this.requireMessage(ch, args.message_ts);
        return { ok: true, channel: ch.id, permalink: this.permalink(msg) };
      },

      'reactions.add': (args) => {
        const ch = this.requireChannel(args.channel, false);
        const name = str(args.name) ?? fail('invalid_name');
        const msg = this.requireMessage(ch, args.timestamp);
        if (msg.reactions.includes(name)) fail('already_reacted');
        msg.reactions.push(name);
        return { ok: true };
      },

      'reactions.remove': (args) => {
        const ch = this.requireChannel(args.channel, false);
        const name = str(args.name) ?? fail('invalid_name');
        const msg = this.requireMessage(ch, args.timestamp);
        if (!msg.reactions.includes(name)) fail('no_reaction');
        msg.reactions = msg.reactions.filter((r) => r !== name);
        return { ok: true };
      },

      'users.info': (args) => {
        const u = this.user(args.user) ?? fail('user_not_found');
        const realName = u.realName ?? u.name;
        return {
          ok: true,
          user: {
            id: u.id,
            team_id: this.teamId,
            name: u.name,
            deleted: false,
            real_name: realName,
            tz: u.tz ?? 'UTC',
            tz_label: u.tz ?? 'UTC',
            tz_offset: u.tzOffset ?? 0,
            is_bot: u.isBot ?? false,
            is_app_user: false,
            profile: { display_name: u.name, display_name_normalized: u.name, real_name: realName, real_name_normalized: realName, team: this.teamId },
          },
        };
      },

      'conversations.info': (args) => {
        const ch = this.requireChannel(args.channel, false);
        return {
          ok: true,
          channel: {
            id: ch.id,
            ...(ch.isIm ? { user: ch.user } : { name: ch.name }),
            is_channel: !ch.isIm,
            is_group: false,
            is_im: ch.isIm ?? false,
            is_mpim: false,
            is_private: ch.isIm ?? false,
            is_archived: false,
            is_member: ch.botIsMember,
            created: 1700000000,
          },
        };
      },

      'conversations.open': (args) => {
        const id = str(args.users) ?? fail('users_list_not_supplied');
        if (id.includes(',')) fail('not_supported');
        const u = this.user(id) ?? fail('user_not_found');
        return { ok: true, channel: { id: this.openIm(u).id } };
      },

      'conversations.replies': (args) => {
        const ch = this.requireChannel(args.channel);
        const root = this.requireMessage(ch, args.ts);
        const threadTs = root.thread_ts ?? root.ts;
        const thread = this.messages.filter(
          (m) => m.channel === ch.id && !m.deleted && !m.ephemeralTo && (m.ts === threadTs || m.thread_ts === threadTs),
        );
        return { ok: true, messages: thread.map((m) => this.messageJson(m)), has_more: false };
      },

      'conversations.history': (args) => {
        const ch = this.requireChannel(args.channel);
        const top = this.messages.filter((m) => m.channel === ch.id && !m.deleted && !m.ephemeralTo && (!m.thread_ts || m.thread_ts === m.ts));
        return { ok: true, messages: top.reverse().map((m) => this.messageJson(m)), has_more: false };
      },

      'views.publish': (args) => {
        const u = this.user(args.user_id) ?? fail('user_not_found');
        const previous = [...this.views].reverse().find((v) => v.kind === 'home' && v.userId === u.id);
        if (previous && str(args.hash) && args.hash !== previous.hash) fail('hash_conflict');
        return this.recordView('views.publish', 'home', args.view, { userId: u.id, ...(previous ? { id: previous.id } : {}) });
      },

      'views.open': (args) => this.openModal('views.open', args),
      'views.push': (args) => this.openModal('views.push', args),

      'views.update': (args) => {
        const previous = this.latestView(str(args.view_id), str(args.external_id)) ?? fail('not_found');
        if (str(args.hash) && args.hash !== previous.hash) fail('hash_conflict');
        return this.recordView('views.update', previous.kind, args.view, {
          id: previous.id,
          ...(previous.userId ? { userId: previous.userId } : {}),
        });
      },

      'files.getUploadURLExternal': (args) => {
        const filename = str(args.filename) ?? fail('invalid_arguments');
        const length = Number(args.length);
        if (!Number.isInteger(length) || length < 0) fail('invalid_arguments');
        const fileId = `F${String(this.nextId()).padStart(10, '0')}`;
        this.uploads.set(fileId, { filename, length });
        return { ok: true, upload_url: `${this.origin}/upload/${fileId}`, file_id: fileId };
      },

      'files.completeUploadExternal': (args) => {
        const list = Array.isArray(args.files) ? (args.files as unknown[]) : fail('invalid_arguments');
        const refs: SlackFileRef[] = list.map((entry) => {
          const e = entry && typeof entry === 'object' ? (entry as Json) : {};
          const id = str(e.id) ?? fail('invalid_arguments');
          const upload = this.uploads.get(id);
          if (!upload?.bytes) fail('file_not_found');
          const bytes = upload?.bytes ?? Buffer.alloc(0);
          const name = upload?.filename ?? id;
          return { id, name, title: str(e.title) ?? name, size: bytes.length, bytes };
        });
        const channelId = str(args.channel_id) ?? str(args.channels);
        if (channelId) {
          const ch = this.requireChannel(channelId);
          const initial = str(args.initial_comment);
          const msg = this.botMessage(ch, { text: initial ?? '', ...(initial ? {} : { blocks: args.blocks }), thread_ts: args.thread_ts }, 'file_share');
          msg.files = refs;
          this.messages.push(msg);
        }
        return { ok: true, files: refs.map((f) => this.fileJson(f)) };
      },
    };
  }

  private openModal(method: string, args: Json): Json {
    const trigger = str(args.trigger_id) ?? str(args.interactivity_pointer) ?? fail('invalid_arguments');
    const userId = this.triggers.get(trigger) ?? fail('invalid_trigger_id');
    return this.recordView(method, 'modal', args.view, { userId, triggerId: trigger });
  }

  // ---------------------------------------------------------------- response_url and upload URLs

  private responseUrlPost(id: string, raw: Buffer): ApiResult {
    const context = this.responseUrls.get(id);
    let body: Json = {};
    try {
      const parsed: unknown = JSON.parse(raw.toString('utf8') || '{}');
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) body = parsed as Json;
    } catch {
      return this.record('response_url', { id }, { status: 400, body: { ok: false, error: 'invalid_payload' } });
    }
    const args: Json = { id, ...body };
    if (!context) return this.record('response_url', args, { status: 404, body: { ok: false, error: 'no_such_response_url' } });
    const source = context.channel && context.messageTs ? this.findMessage(context.channel, context.messageTs) : undefined;
    if (body.delete_original === true && source) {
      source.deleted = true;
      return this.record('response_url', args, { status: 200, body: { ok: true } });
    }
    if (body.replace_original === true && source) {
      if (typeof body.text === 'string') source.text = body.text;
      if (Array.isArray(body.blocks)) {
        if (body.blocks.length > 0) source.blocks = body.blocks as unknown[];
        else delete source.blocks;
      }
      source.edited = true;
      return this.record('response_url', args, { status: 200, body: { ok: true } });
    }
    const ch = context.channel ? this.channel(context.channel) : undefined;
    if (!ch) return this.record('response_url', args, { status: 404, body: { ok: false, error: 'channel_not_found' } });
    const threadTs = str(body.thread_ts) ?? context.threadTs;
    const msg = this.botMessage(ch, { text: body.text, blocks: body.blocks, thread_ts: threadTs }, 'response_url');
    // Slack docs (slash commands / handling interactions): response_url replies are ephemeral unless response_type is "in_channel".
    if (body.response_type !== 'in_channel' && context.user) msg.ephemeralTo = context.user;
    this.messages.push(msg);
    return this.record('response_url', args, { status: 200, body: { ok: true } });
  }

  private async upload(fileId: string, req: IncomingMessage, raw: Buffer): Promise<{ status: number; text: string }> {
    const pending = this.uploads.get(fileId);
    if (!pending) {
      this.record('file_upload', { file_id: fileId }, { status: 404, body: 'unknown upload url' });
      return { status: 404, text: 'unknown upload url' };
    }
    const contentType = req.headers['content-type'] ?? '';
    let bytes = raw;
    if (contentType.toLowerCase().startsWith('multipart/form-data')) {
      const form = await parseForm(contentType, raw);
      const part = form.get('body') ?? form.get('file') ?? [...form.values()][0];
      bytes = part === undefined || part === null ? Buffer.alloc(0) : typeof part === 'string' ? Buffer.from(part) : Buffer.from(await part.arrayBuffer());
    }
    pending.bytes = bytes;
    const text = `OK - ${bytes.length}`;
    this.record('file_upload', { file_id: fileId, filename: pending.filename, length: bytes.length }, { status: 200, body: text });
    return { status: 200, text };
  }
}

/**
 * Start a fake Slack Web API on 127.0.0.1.
 *
 * @param opts - see {@link FakeSlackOptions}; only `botToken` is required.
 * @returns a started {@link FakeSlack}; call `close()` when done.
 * @throws if the port cannot be bound (e.g. EADDRINUSE).
 *
 * Facts mirrored (Slack docs, method reference pages and "Rate limits"; @slack/web-api 8 WebClient.js):
 * errors are HTTP 200 `{ok:false,error}`; rate limits are HTTP 429 + `Retry-After` seconds; message `ts`
 * is "seconds.micros"; permalinks are `https://<domain>.slack.com/archives/<channel>/p<ts without dot>`
 * plus `?thread_ts=<root>&cid=<channel>` for thread replies.
 */
export async function startFakeSlack(opts: FakeSlackOptions): Promise<FakeSlack> {
  const fake = new FakeSlackServer(opts);
  await fake.listen();
  return fake;
}
