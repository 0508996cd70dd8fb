/**
 * The fake Slack's HTTP side: routing (`/api/<method>`, `/response/<id>`, `/upload/<file_id>`), body
 * parsing, authentication, injected failures and call recording. The Web API methods themselves live
 * in one module per family (chat, reactions, views, conversations, users, files, auth) over a shared
 * {@link SlackState}.
 *
 * Slack docs ("Web API basics", "Rate limits"): the token comes from `Authorization: Bearer <token>`
 * (what WebClient sends) or a `token` argument; every answer is HTTP 200 with `{ ok: true, ... }` or
 * `{ ok: false, error }`, except rate limits, which are HTTP 429 with a `Retry-After: <seconds>` header.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { authMethods } from './auth.js';
import { parseArgs, readBody, sendJson, sendText } from './body.js';
import { chatMethods } from './chat.js';
import { conversationsMethods } from './conversations.js';
import { filesMethods, receiveUpload } from './files.js';
import { SlackApiError, str, type ApiResult, type Json, type MethodTable } from './method.js';
import { reactionsMethods } from './reactions.js';
import { CallRecorder } from './recorder.js';
import { responseUrlPost } from './response-url.js';
import { SlackState } from './state.js';
import type { FakeSlack, FakeSlackOptions, SlackCall, SlackFailure } from './types.js';
import { usersMethods } from './users.js';
import { viewsMethods } from './views.js';

/** Every Web API method the fake answers; others answer `unknown_method`. */
function allMethods(state: SlackState): MethodTable {
  return {
    ...authMethods(state),
    ...chatMethods(state),
    ...reactionsMethods(state),
    ...usersMethods(state),
    ...conversationsMethods(state),
    ...viewsMethods(state),
    ...filesMethods(state),
  };
}

/** The token of a Web API call: the `Authorization: Bearer` header, else the `token` argument. */
function callToken(req: IncomingMessage, args: Json): string | undefined {
  const auth = req.headers.authorization;
  const bearer = auth?.startsWith('Bearer ') ? auth.slice('Bearer '.length).trim() : undefined;
  return bearer ?? str(args.token);
}

/** The answer for an injected failure (Slack docs, "Rate limits": 429 + `Retry-After` seconds, body error "ratelimited"). */
function failureResult(failure: SlackFailure): ApiResult {
  if ('status' in failure) {
    return { status: 429, body: { ok: false, error: 'ratelimited' }, headers: { 'retry-after': String(failure.retryAfterS) } };
  }
  return { status: 200, body: { ok: false, error: failure.error } };
}

const slackError = (error: string): ApiResult => ({ status: 200, body: { ok: false, error } });

/** The running fake: the workspace state (inherited), its call log, the Web API methods over it, and the HTTP server. */
class FakeSlackServer extends SlackState implements FakeSlack {
  readonly calls: SlackCall[];
  private readonly recorder: CallRecorder;
  private readonly methods: MethodTable;
  private readonly server: Server;
  private readonly failures = new Map<string, Array<{ failure: SlackFailure; remaining: number }>>();

  constructor(private readonly opts: FakeSlackOptions) {
    super(opts);
    this.recorder = new CallRecorder(this.now);
    this.calls = this.recorder.calls;
    this.methods = allMethods(this);
    this.server = createServer((req, res) => {
      this.route(req, res).catch((err: unknown) => {
        if (!res.headersSent) sendJson(res, 500, { ok: false, error: 'fatal_error', detail: String(err) });
        else res.end();
      });
    });
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

  onCall(cb: (call: SlackCall) => void): () => void {
    return this.recorder.onCall(cb);
  }

  waitFor<T>(fn: () => T | undefined | null | false, timeoutMs?: number): Promise<T> {
    return this.recorder.waitFor(fn, timeoutMs);
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
    sendText(res, 404, 'not found');
  }

  /** One Web API call: parse, authenticate, apply an injected failure or run the method, record. */
  private async api(method: string, req: IncomingMessage, raw: Buffer, url: URL): Promise<ApiResult> {
    let args: Json;
    try {
      args = await parseArgs(req, raw, url);
    } catch (err) {
      return this.recorder.record(method, {}, slackError(err instanceof SlackApiError ? err.code : 'invalid_form_data'));
    }
    const token = callToken(req, args);
    delete args.token;
    return this.recorder.record(method, args, this.answer(method, token, args));
  }

  private answer(method: string, token: string | undefined, args: Json): ApiResult {
    if (!token) return slackError('not_authed');
    if (token !== this.opts.botToken) return slackError('invalid_auth');
    const injected = this.takeFailure(method);
    if (injected) return failureResult(injected);
    const handler = this.methods[method];
    if (!handler) return slackError('unknown_method');
    try {
      return { status: 200, body: handler(args) };
    } catch (err) {
      if (err instanceof SlackApiError) return slackError(err.code);
      throw err;
    }
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
