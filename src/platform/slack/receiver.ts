import type { App, Receiver } from '@slack/bolt';
import { verifySlackRequest } from '@slack/bolt';
import type { InstallProvider } from '@slack/oauth';
import { SocketModeClient } from '@slack/socket-mode';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Logger } from '../logger.js';
import { toBoltLogger } from './bolt-logger.js';
import type { EdgeObserver, EdgeResponse, SlackEdge } from './edge.js';
import { toStartupError } from './startup.js';

/** A route served next to the Slack endpoint (`GET /healthz`, `GET /metrics`). */
export interface HttpRoute {
  method: 'GET' | 'POST';
  path: string;
  handler: (req: IncomingMessage, res: ServerResponse) => Promise<void> | void;
}

/** Options of {@link SlackReceiver}. */
interface SlackReceiverOptions {
  edge: SlackEdge;
  logger: Logger;
  port: number;
  /** Extra HTTP routes, served in both modes. */
  routes: HttpRoute[];
  /** HTTP mode: the signing secret that verifies `POST /slack/events`. */
  signingSecret?: string;
  /** Socket Mode: the app-level token (`xapp-…`); then no Slack endpoint is served over HTTP. */
  appToken?: string;
  /** Web API base for `apps.connections.open` (SLACK_API_URL). */
  slackApiUrl: string;
  /** Largest request body accepted, in bytes (Slack's payloads are far smaller). @defaultValue 1 MiB */
  bodyLimit?: number;
  /** Clock in epoch ms (request timestamps). */
  now?: () => number;
  /** Told about requests refused before the edge sees them (too large, bad signature, unparseable). */
  observer?: EdgeObserver;
  /**
   * OAuth mode: the installer (oauth.ts), whose routes are among `routes`. Bolt's App takes its
   * `authorize` from the receiver's `installer`, as with Bolt's own receivers.
   */
  installer?: InstallProvider;
}

/** Slack's replay window: a request's timestamp may differ from our clock by at most 5 minutes, either way. */
const MAX_CLOCK_SKEW_S = 300;

/**
 * The bot's Bolt receiver. One HTTP server on PORT serves the routes (`/healthz`, `/metrics`) in
 * both modes and, in HTTP mode, `POST /slack/events`: the body is read up to `bodyLimit`, its
 * signature checked with Bolt's `verifySlackRequest` and its timestamp held to 5 minutes in either
 * direction (Bolt refuses only old ones), then parsed (JSON, or a form with a `payload` field) and
 * handed to the {@link SlackEdge}. In Socket Mode (`appToken`) the same edge handles each envelope
 * from `@slack/socket-mode`, and acks it with the edge's payload.
 */
export class SlackReceiver implements Receiver {
  private readonly server: Server;
  private socket: SocketModeClient | undefined;
  private readonly now: () => number;
  /** OAuth mode's installer, read by Bolt's App for its `authorize` (unset in single-token mode). */
  readonly installer: InstallProvider | undefined;

  constructor(private readonly opts: SlackReceiverOptions) {
    this.now = opts.now ?? Date.now;
    this.installer = opts.installer;
    this.server = createServer((req, res) => {
      this.route(req, res).catch((err: unknown) => {
        opts.logger.error({ err }, 'HTTP handler failed');
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
    });
  }

  init(app: App): void {
    this.opts.edge.init(app);
  }

  /** Listens on PORT (and connects the socket in Socket Mode). @returns the HTTP server. */
  async start(): Promise<Server> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.opts.port, () => resolve());
    });
    if (this.opts.appToken) await this.startSocketMode(this.opts.appToken);
    return this.server;
  }

  /** Stops taking requests: closes the socket and the server (requests under way finish). */
  async stop(): Promise<void> {
    await this.socket
      ?.disconnect()
      .catch((err: unknown) => this.opts.logger.warn({ err }, 'Socket Mode disconnect failed while stopping'));
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeIdleConnections();
  }

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    const route = this.opts.routes.find((r) => r.path === path && r.method === req.method);
    if (route) return route.handler(req, res);
    if (path === '/slack/events' && req.method === 'POST' && !this.opts.appToken) return this.slackEvents(req, res);
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found');
  }

  private async slackEvents(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = process.hrtime.bigint();
    const refuse = (outcome: 'malformed' | 'rejected', status: number, close = false) => {
      this.opts.observer?.onReply(undefined, outcome, Number(process.hrtime.bigint() - started) / 1e9);
      reply(res, { status }, close);
    };
    const raw = await readBody(req, this.opts.bodyLimit ?? 1024 * 1024);
    if (raw === undefined) return refuse('malformed', 413, true);
    const text = raw.toString('utf8');
    if (!this.verified(req, text)) return refuse('rejected', 401);
    let body: unknown;
    try {
      body = parseBody(String(req.headers['content-type'] ?? ''), text);
    } catch {
      this.opts.logger.warn('refused a request body that is neither JSON nor a form');
      return refuse('malformed', 400);
    }
    const retryNum = Number(req.headers['x-slack-retry-num']);
    const retryReason = req.headers['x-slack-retry-reason'];
    await this.opts.edge.handle(
      body,
      {
        ...(Number.isInteger(retryNum) ? { retryNum } : {}),
        ...(typeof retryReason === 'string' ? { retryReason } : {}),
      },
      (r) => reply(res, r),
    );
  }

  /** Bolt's signature check, plus Slack's rule that the timestamp is not more than 5 minutes in the future either. */
  private verified(req: IncomingMessage, body: string): boolean {
    const timestamp = Number(req.headers['x-slack-request-timestamp']);
    const signature = req.headers['x-slack-signature'];
    const nowS = Math.floor(this.now() / 1000);
    let reason: string | undefined;
    if (!Number.isInteger(timestamp) || typeof signature !== 'string' || !this.opts.signingSecret)
      reason = 'missing signature headers';
    else if (timestamp > nowS + MAX_CLOCK_SKEW_S) reason = 'timestamp too far in the future';
    else {
      try {
        verifySlackRequest({
          signingSecret: this.opts.signingSecret,
          body,
          headers: { 'x-slack-signature': signature, 'x-slack-request-timestamp': timestamp },
          nowMilliseconds: this.now(),
        });
      } catch (err) {
        reason = (err as Error).message.replace(/^Failed to verify authenticity: /, '');
      }
    }
    if (reason) this.opts.logger.warn({ reason }, 'refused a request that failed Slack signature verification');
    return reason === undefined;
  }

  /**
   * Connects to Slack over Socket Mode. @throws {@link StartupError} naming SLACK_APP_TOKEN when
   * `apps.connections.open` is refused (e.g. `invalid_auth`) or Slack cannot be reached.
   */
  private async startSocketMode(appToken: string): Promise<void> {
    // Until the first connection, the client's own error lines (e.g. "Failed to retrieve a new WSS
    // URL") are warnings: if start fails, the StartupError below is the one error line.
    let starting = true;
    const boltLogger = toBoltLogger(this.opts.logger);
    const logger = {
      ...boltLogger,
      error: (...msg: unknown[]) => (starting ? boltLogger.warn(...msg) : boltLogger.error(...msg)),
    };
    const socket = new SocketModeClient({ appToken, logger, clientOptions: { slackApiUrl: this.opts.slackApiUrl } });
    socket.on(
      'slack_event',
      ({
        ack,
        body,
        retry_num,
        retry_reason,
      }: {
        ack: (r?: Record<string, unknown>) => Promise<void>;
        body: unknown;
        retry_num?: number;
        retry_reason?: string;
      }) => {
        void this.opts.edge.handle(
          body,
          {
            ...(retry_num !== undefined ? { retryNum: retry_num } : {}),
            ...(retry_reason ? { retryReason: retry_reason } : {}),
          },
          (r) => {
            // Socket Mode has no status codes: a refused or unrecorded envelope is left unacked, so Slack retries it.
            if (r.status < 300)
              ack(r.body).catch((err: unknown) =>
                this.opts.logger.warn({ err }, 'could not ack a Socket Mode envelope'),
              );
          },
        );
      },
    );
    const observer = this.opts.observer;
    if (observer?.onSocketState) {
      // The client's own events: `connected` on Slack's hello; `close` (the socket gone), then
      // `reconnecting` before each new attempt; `disconnected` once it gives up or is stopped.
      socket.on('connected', () => observer.onSocketState?.(true));
      for (const e of ['close', 'reconnecting', 'disconnected']) socket.on(e, () => observer.onSocketState?.(false));
    }
    this.socket = socket;
    try {
      await socket.start();
    } catch (err) {
      throw toStartupError('SLACK_APP_TOKEN', err, this.opts.slackApiUrl) ?? err;
    } finally {
      starting = false;
    }
  }
}

/**
 * Reads the whole body, or undefined when it is larger than `limit` bytes: reading then stops (the
 * request paused, not destroyed, so the refusal can still be written; the connection is closed after
 * it, see {@link reply}'s `close`). @throws the stream's error.
 */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      req.off('data', onData);
      req.pause();
      resolve(undefined);
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('error', reject);
  });
}

/**
 * Parses a Slack request body: `application/x-www-form-urlencoded` (commands: the fields;
 * interactivity: the JSON in `payload`) or JSON (Events API).
 * @throws SyntaxError when the JSON does not parse.
 */
export function parseBody(contentType: string, text: string): unknown {
  if (contentType.toLowerCase().startsWith('application/x-www-form-urlencoded')) {
    const form = new URLSearchParams(text);
    const payload = form.get('payload');
    if (payload !== null) return JSON.parse(payload) as unknown;
    return Object.fromEntries(form);
  }
  return JSON.parse(text) as unknown;
}

/** Writes the edge's answer (JSON when it has a body); `close`: the connection is closed after it. */
function reply(res: ServerResponse, r: EdgeResponse, close = false): void {
  if (res.headersSent) return;
  // A body left unread (over the limit): the connection can't carry another request, and a client
  // or load balancer must not reuse it (Node closes it once the answer is written).
  if (close) res.setHeader('connection', 'close');
  if (r.body) {
    const json = JSON.stringify(r.body);
    res.writeHead(r.status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(json),
    });
    res.end(json);
    return;
  }
  res.writeHead(r.status);
  res.end();
}
