/**
 * The fake Slack's HTTP side: routing (`/api/<method>`, `/response/<id>`, `/upload/<file_id>`,
 * `/files-pri/<team>-<file_id>/…`, and the Socket Mode WebSocket upgrade on `/socket`), body parsing,
 * authentication, injected failures and call recording. The Web API methods themselves live in one
 * module per family (chat, chat streaming, reactions, views, conversations + history, users, usergroups,
 * files, auth, apps via the Socket Mode server) over a shared {@link SlackState}.
 *
 * Slack docs ("Web API basics", "Rate limits"): the token comes from `Authorization: Bearer <token>`
 * (what WebClient sends) or a `token` argument; every answer is HTTP 200 with `{ ok: true, ... }` or
 * `{ ok: false, error }`, except rate limits, which are HTTP 429 with a `Retry-After: <seconds>` header.
 * Token types (apps.connections.open page; the methods' `not_allowed_token_type` error): the app-level
 * token works only for apps.connections.open, and only in the Authorization header ("passing it as a
 * POST parameter will result in an error"); the bot token does not work there. The bot token's calls
 * need the method's scopes (`missing_scope` otherwise; see ./scopes.ts).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FakeAgentState } from './agent-state.js';
import { agentMethods } from './agents.js';
import { authMethods } from './auth.js';
import { checkTeamArgument, orgWideMethods } from './org-wide.js';
import { parseArgs, readBody, sendJson, sendText } from './body.js';
import { chatMethods } from './chat.js';
import { conversationsMethods } from './conversations.js';
import { filesMethods, receiveUpload, serveFile } from './files.js';
import { SlackApiError, str, type ApiResult, type Json, type MethodTable } from './method.js';
import { reactionsMethods } from './reactions.js';
import { CallRecorder } from './recorder.js';
import { responseUrlPost } from './response-url.js';
import { manifestBotScopes, neededScopes } from './scopes.js';
import { SocketModeServer } from './socket.js';
import { SlackState } from './state.js';
import { FakeInstalls } from './installs.js';
import { FakeStreamState } from './stream-state.js';
import { streamMethods } from './streams.js';
import type { FakeSlack, FakeSlackOptions, HeldCall, SlackCall, SlackFailure, TokenIdentity } from './types.js';
import { usergroupsMethods } from './usergroups.js';
import { usersMethods } from './users.js';
import { viewsMethods } from './views.js';

/** Every Web API method the fake answers; others answer `unknown_method`. */
function allMethods(
  state: SlackState,
  socket: SocketModeServer,
  agent: FakeAgentState,
  streams: FakeStreamState,
): MethodTable {
  return {
    ...authMethods(state),
    ...orgWideMethods(state),
    ...agentMethods(state, agent),
    ...chatMethods(state),
    ...streamMethods(state, streams, agent),
    ...reactionsMethods(state),
    ...usersMethods(state),
    ...usergroupsMethods(state),
    ...conversationsMethods(state),
    ...viewsMethods(state),
    ...filesMethods(state),
    ...socket.methods(),
  };
}

/** The `Authorization: Bearer` token of a request, if any. */
function bearer(req: IncomingMessage): string | undefined {
  const auth = req.headers.authorization;
  return auth?.startsWith('Bearer ') ? auth.slice('Bearer '.length).trim() : undefined;
}

/** The token of a Web API call and whether it came in the header (else the `token` argument). */
function callToken(req: IncomingMessage, args: Json): { token: string | undefined; inHeader: boolean } {
  const header = bearer(req);
  return { token: header ?? str(args.token), inHeader: header !== undefined };
}

/** The answer for an injected failure (Slack docs, "Rate limits": 429 + `Retry-After` seconds, body error "ratelimited"). */
function failureResult(failure: SlackFailure): ApiResult {
  if ('status' in failure) {
    return {
      status: 429,
      body: { ok: false, error: 'ratelimited' },
      headers: { 'retry-after': String(failure.retryAfterS) },
    };
  }
  return { status: 200, body: { ok: false, error: failure.error } };
}

const slackError = (error: string, extra: Json = {}): ApiResult => ({
  status: 200,
  body: { ok: false, error, ...extra },
});

/** The running fake: the workspace state (inherited), its call log, the Web API methods over it, and the HTTP server. */
class FakeSlackServer extends SlackState implements FakeSlack {
  readonly calls: SlackCall[];
  readonly socket: SocketModeServer;
  readonly agent = new FakeAgentState();
  readonly streams = new FakeStreamState();
  readonly scopes: Set<string>;
  private readonly recorder: CallRecorder;
  private readonly methods: MethodTable;
  readonly installs: FakeInstalls;
  private readonly server: Server;
  private readonly failures = new Map<string, Array<{ failure: SlackFailure; remaining: number }>>();
  private readonly holds = new Map<string, Array<{ arrived: () => void; released: Promise<void> }>>();

  constructor(private readonly opts: FakeSlackOptions) {
    super(opts);
    this.scopes = new Set(opts.scopes ?? manifestBotScopes());
    this.recorder = new CallRecorder(this.now);
    this.calls = this.recorder.calls;
    this.socket = new SocketModeServer({
      appId: this.appId,
      origin: () => this.origin,
      now: this.now,
      pingIntervalMs: opts.socketPingIntervalMs ?? 0,
    });
    this.installs = new FakeInstalls(this, opts.oauth, () => [...this.scopes]);
    this.methods = { ...allMethods(this, this.socket, this.agent, this.streams), ...this.installs.methods() };
    this.server = createServer((req, res) => {
      this.route(req, res).catch((err: unknown) => {
        if (!res.headersSent) sendJson(res, 500, { ok: false, error: 'fatal_error', detail: String(err) });
        else res.end();
      });
    });
    this.server.on('upgrade', (req, socket, head) => this.socket.handleUpgrade(req, socket, head));
  }

  /** The app-level token Socket Mode accepts (`opts.appToken`). */
  get appToken(): string | undefined {
    return this.opts.appToken;
  }

  /** Web API base with trailing slash, "" until the server listens. */
  get url(): string {
    return this.origin ? `${this.origin}/api/` : '';
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.opts.port ?? 0, '127.0.0.1', () => resolve());
    });
    const { port } = this.server.address() as AddressInfo;
    this.origin = `http://127.0.0.1:${port}`;
  }

  // ---------------------------------------------------------------- public API (the rest is SlackState's)

  failNext(method: string, failure: SlackFailure, times = 1): void {
    const queue = this.failures.get(method) ?? [];
    queue.push({ failure, remaining: times });
    this.failures.set(method, queue);
  }

  hold(method: string): HeldCall {
    let arrived!: () => void;
    let release!: () => void;
    const reached = new Promise<void>((resolve) => (arrived = resolve));
    const released = new Promise<void>((resolve) => (release = resolve));
    const queue = this.holds.get(method) ?? [];
    queue.push({ arrived, released });
    this.holds.set(method, queue);
    return { reached, release };
  }

  onCall(cb: (call: SlackCall) => void): () => void {
    return this.recorder.onCall(cb);
  }

  waitFor<T>(fn: () => T | undefined | null | false, timeoutMs?: number): Promise<T> {
    return this.recorder.waitFor(fn, timeoutMs);
  }

  async close(): Promise<void> {
    await this.socket.close();
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
      const result = responseUrlPost(this, this.recorder, decodeURIComponent(responseMatch[1]), raw);
      sendJson(res, result.status, result.body);
      return;
    }
    const uploadMatch = /^\/upload\/([^/]+)$/.exec(url.pathname);
    if (uploadMatch?.[1] && req.method === 'POST') {
      const { status, text } = await receiveUpload(this, this.recorder, decodeURIComponent(uploadMatch[1]), req, raw);
      sendText(res, status, text);
      return;
    }
    const fileMatch = /^\/files-pri\/[A-Z0-9]+-(F[A-Z0-9]+)\//.exec(url.pathname);
    if (fileMatch?.[1] && req.method === 'GET') {
      const file = serveFile(this, this.recorder, fileMatch[1], bearer(req) === this.opts.botToken);
      res.writeHead(file.status, { 'content-type': file.contentType, 'content-length': file.bytes.length });
      res.end(file.bytes);
      return;
    }
    sendText(res, 404, 'not found');
  }

  /** One Web API call: parse, authenticate, apply an injected failure or run the method, record. */
  private async api(method: string, req: IncomingMessage, raw: Buffer, url: URL): Promise<ApiResult> {
    let args: Json;
    try {
      args = await parseArgs(req, raw, url);
    } catch (err) {
      return this.recorder.record(
        method,
        {},
        slackError(err instanceof SlackApiError ? err.code : 'invalid_form_data'),
      );
    }
    const { token, inHeader } = callToken(req, args);
    delete args.token;
    const held = this.holds.get(method)?.shift();
    if (held) {
      held.arrived();
      await held.released;
    }
    const issued = token ? this.installs.identity(token) : undefined;
    const result = this.answer(method, token, inHeader, args);
    this.recorder.record(method, args, result);
    if (issued) Object.assign(this.calls[this.calls.length - 1] ?? {}, { tokenTeam: issued.teamId });
    return result;
  }

  /** The token check (see the module doc), the scope check (./scopes.ts), then an injected failure or the method. */
  private answer(method: string, token: string | undefined, inHeader: boolean, args: Json): ApiResult {
    if (method === 'oauth.v2.access') return this.run(method, args);
    const tokenError = this.tokenError(method, token, inHeader);
    if (tokenError) return slackError(tokenError);
    const issued = token ? this.installs.identity(token) : undefined;
    if (token !== this.opts.botToken && !issued) return this.run(method, args);
    const needed = neededScopes(this, method, args);
    const headers: Record<string, string> = { 'x-oauth-scopes': [...this.scopes].join(',') };
    if (needed.length > 0) headers['x-accepted-oauth-scopes'] = needed.join(',');
    const missing = needed.filter((s) => !this.scopes.has(s));
    if (missing.length > 0)
      return {
        ...slackError('missing_scope', { needed: missing.join(','), provided: headers['x-oauth-scopes'] }),
        headers,
      };
    const result = this.run(method, args, issued);
    return { ...result, headers: { ...headers, ...result.headers } };
  }

  /**
   * Whether a token of an OAuth install (`who`) may see `channel`: a channel of its own workspace,
   * of its org's workspaces for an org-wide install, or org-shared within its org. The fake's own
   * bot token sees every channel, as before.
   */
  private channelVisible(who: TokenIdentity, channel: string): boolean {
    const c = this.channels.find((x) => x.id === channel);
    if (!c) return true; // a DM by user id, or a channel the method itself refuses
    const team = c.teamId ?? this.teamId;
    if (team === who.teamId) return true;
    const org = this.enterprise;
    const sameOrg = org !== undefined && who.enterpriseId === org.id && org.teams.some((t) => t.id === team);
    return sameOrg && (who.orgWide || c.isOrgShared === true);
  }

  /** An injected failure, or the method itself (answered as `who` when the token is an OAuth install's). */
  private run(method: string, args: Json, who?: TokenIdentity): ApiResult {
    const injected = this.takeFailure(method);
    if (injected) return failureResult(injected);
    const handler = this.methods[method];
    if (!handler) return slackError('unknown_method');
    try {
      checkTeamArgument(this, method, args, who);
      if (who && typeof args.channel === 'string' && !this.channelVisible(who, args.channel))
        return slackError('channel_not_found');
      this.caller = who;
      let body: Json;
      try {
        body = handler(args);
      } finally {
        this.caller = undefined;
      }
      // Slack clears a thread's loading line when the app posts in it (assistant.threads.setStatus);
      // a streamed reply is a post in the thread too.
      if (method === 'chat.postMessage' || method === 'chat.startStream') {
        this.agent.botPosted(String(body.channel), str(args.thread_ts));
      }
      return { status: 200, body };
    } catch (err) {
      if (err instanceof SlackApiError) return slackError(err.code, err.extra);
      throw err;
    }
  }

  /** Why `token` may not call `method`, or undefined when it may. */
  private tokenError(method: string, token: string | undefined, inHeader: boolean): string | undefined {
    if (!token) return 'not_authed';
    if (token === this.opts.botToken && this.installs.isDeleted(this.teamId)) return 'account_inactive';
    const isApp = this.opts.appToken !== undefined && token === this.opts.appToken;
    if (!isApp && token !== this.opts.botToken && !this.installs.identity(token))
      return this.installs.refusal(token) ?? 'invalid_auth';
    if ((method === 'apps.connections.open') !== isApp) return 'not_allowed_token_type';
    if (isApp && !inHeader) return 'not_authed';
    return undefined;
  }

  private takeFailure(method: string): SlackFailure | undefined {
    const queue = this.failures.get(method);
    const head = queue?.[0];
    if (!queue || !head) return undefined;
    head.remaining -= 1;
    if (head.remaining <= 0) queue.shift();
    return head.failure;
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
