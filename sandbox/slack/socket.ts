/**
 * Socket Mode side of the fake Slack: `apps.connections.open` and the WebSocket it hands out, served
 * with the `ws` package on the fake's own HTTP server (`upgrade` on `/socket?ticket=…&app_id=…`).
 *
 * What it mirrors (Slack docs "Using Socket Mode" / "Socket Mode implementation",
 * docs.slack.dev/apis/events-api/using-socket-mode; apps.connections.open method page; and what
 * @slack/socket-mode 3's SocketModeClient reads):
 * - apps.connections.open answers `{ok: true, url}`; the URL is single-use ("ticket"), like Slack's
 *   `wss://wss-….slack.com/link/?ticket=…&app_id=…`; here `ws://127.0.0.1:PORT/socket?ticket=…&app_id=…`.
 * - On connect Slack sends `{type:"hello", num_connections, debug_info:{host, build_number,
 *   approximate_connection_time}, connection_info:{app_id}}` (approximate_connection_time in seconds).
 * - Envelopes are `{envelope_id, type, payload, accepts_response_payload}`; events_api ones also carry
 *   `retry_attempt` and `retry_reason`. The app acks with `{envelope_id, payload?}` within 3 seconds.
 * - Before retiring a connection Slack sends `{type:"disconnect", reason, debug_info:{host}}` with reason
 *   "warning" (about 10 s ahead), "refresh_requested" or "link_disabled".
 * - Slack answers WebSocket pings with pongs (`ws` does that by itself) and pings its clients
 *   (`socketPingIntervalMs`, off by default).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import type { MethodTable } from './method.js';
import type {
  AckRecord,
  FakeSocketMode,
  SendEnvelopeOptions,
  SentEnvelope,
  SocketConnectionInfo,
  SocketDisconnectReason,
  SocketEnvelopeType,
} from './socket-types.js';
import { Waiters } from './waiters.js';

/** What the Socket Mode server needs from the fake. */
export interface SocketModeContext {
  appId: string;
  /** "http://127.0.0.1:PORT" once listening. */
  origin: () => string;
  /** Clock in epoch ms for `at` stamps. */
  now: () => number;
  /** Server → client ping interval in ms; 0 = never. */
  pingIntervalMs: number;
}

interface Connection {
  info: SocketConnectionInfo;
  ws: WebSocket;
  pinger?: NodeJS.Timeout;
}

/** Default `accepts_response_payload`: slash commands, and interactions whose ack can carry an answer (view_submission's response_action, block_suggestion's options). */
function acceptsResponse(type: SocketEnvelopeType, payload: unknown): boolean {
  if (type === 'slash_commands') return true;
  if (type !== 'interactive') return false;
  const kind = (payload as { type?: unknown } | null)?.type;
  return kind === 'view_submission' || kind === 'block_suggestion';
}

/** The fake's Socket Mode endpoint and the handle tests drive it through (`FakeSlack.socket`). */
export class SocketModeServer implements FakeSocketMode {
  readonly history: SocketConnectionInfo[] = [];
  readonly envelopes: SentEnvelope[] = [];
  readonly acks: AckRecord[] = [];
  private readonly wss = new WebSocketServer({ noServer: true });
  private readonly open: Connection[] = [];
  private readonly tickets = new Set<string>();
  private readonly waiters = new Waiters();

  constructor(private readonly ctx: SocketModeContext) {}

  /** See {@link FakeSocketMode.connections}. */
  get connections(): number {
    return this.open.length;
  }

  /** `apps.connections.open` (the token was already checked by the server). */
  methods(): MethodTable {
    return { 'apps.connections.open': () => ({ ok: true, url: this.mintUrl() }) };
  }

  /** A fresh single-use WebSocket URL. */
  private mintUrl(): string {
    const ticket = randomUUID();
    this.tickets.add(ticket);
    const wsOrigin = this.ctx.origin().replace(/^http/, 'ws');
    return `${wsOrigin}/socket?ticket=${ticket}&app_id=${encodeURIComponent(this.ctx.appId)}`;
  }

  /**
   * Handle an HTTP upgrade: `/socket` with a ticket minted by apps.connections.open becomes a Socket
   * Mode connection; anything else is refused with HTTP 401 (or 404 off `/socket`).
   */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const ticket = url.searchParams.get('ticket') ?? '';
    if (url.pathname !== '/socket' || !this.tickets.delete(ticket)) {
      socket.end(
        `HTTP/1.1 ${url.pathname === '/socket' ? '401 Unauthorized' : '404 Not Found'}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`,
      );
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws));
  }

  /** A new connection: record it, wire its frames, start pinging, say hello. */
  private accept(ws: WebSocket): void {
    const info: SocketConnectionInfo = {
      id: this.history.length + 1,
      open: true,
      openedAt: this.ctx.now(),
      pingsReceived: 0,
    };
    const conn: Connection = { info, ws };
    this.history.push(info);
    this.open.push(conn);
    ws.on('message', (data, isBinary) => this.receive(conn, data, isBinary));
    ws.on('error', () => undefined); // a broken client must not crash the fake
    ws.on('close', () => this.closed(conn));
    ws.on('ping', () => {
      info.pingsReceived += 1; // ws answers with a pong by itself
      this.waiters.notify();
    });
    if (this.ctx.pingIntervalMs > 0) {
      conn.pinger = setInterval(() => ws.ping(), this.ctx.pingIntervalMs);
      conn.pinger.unref();
    }
    ws.send(
      JSON.stringify({
        type: 'hello',
        num_connections: this.open.length,
        debug_info: { host: this.host(conn), build_number: 1, approximate_connection_time: 18060 },
        connection_info: { app_id: this.ctx.appId },
      }),
    );
    this.waiters.notify();
  }

  private host(conn: Connection): string {
    return `applink-fake-${conn.info.id}`;
  }

  private closed(conn: Connection): void {
    clearInterval(conn.pinger);
    conn.info.open = false;
    conn.info.closedAt = this.ctx.now();
    const i = this.open.indexOf(conn);
    if (i >= 0) this.open.splice(i, 1);
    this.waiters.notify();
  }

  /** Record an ack `{envelope_id, payload?}`; other frames are ignored like Slack ignores them. */
  private receive(conn: Connection, data: RawData, isBinary: boolean): void {
    if (isBinary) return;
    let msg: unknown;
    try {
      msg = JSON.parse(Buffer.isBuffer(data) ? data.toString('utf8') : String(data));
    } catch {
      return;
    }
    const m = msg as { envelope_id?: unknown; payload?: unknown } | null;
    if (!m || typeof m.envelope_id !== 'string') return;
    this.acks.push({
      envelope_id: m.envelope_id,
      ...('payload' in m ? { payload: m.payload } : {}),
      connection: conn.info.id,
      at: this.ctx.now(),
    });
    this.waiters.notify();
  }

  // ---------------------------------------------------------------- FakeSocketMode

  /** See {@link FakeSocketMode.waitForConnection}. */
  waitForConnection(opts: { nth?: number; timeoutMs?: number } = {}): Promise<SocketConnectionInfo> {
    const { nth } = opts;
    const what = nth === undefined ? 'an open Socket Mode connection' : `Socket Mode connection #${nth}`;
    return this.waiters.until(
      () => (nth === undefined ? this.open.at(-1)?.info : this.open.find((c) => c.info.id === nth)?.info),
      opts.timeoutMs ?? 5000,
      () => `${what} (opened so far: ${this.history.length}, open now: ${this.open.length})`,
    );
  }

  /** See {@link FakeSocketMode.send}: the envelope goes out on the newest open socket. */
  async send(type: SocketEnvelopeType, payload: unknown, opts: SendEnvelopeOptions = {}): Promise<AckRecord> {
    const timeoutMs = opts.timeoutMs ?? 3000;
    const started = Date.now();
    const conn = await this.waiters.until(
      () => this.open.at(-1),
      timeoutMs,
      () => `an open Socket Mode connection to send a ${type} envelope on`,
    );
    const envelopeId = opts.envelopeId ?? randomUUID();
    const retry =
      type === 'events_api' ? { retry_attempt: opts.retryAttempt ?? 0, retry_reason: opts.retryReason ?? '' } : {};
    const accepts = opts.acceptsResponsePayload ?? acceptsResponse(type, payload);
    const envelope = { envelope_id: envelopeId, payload, type, accepts_response_payload: accepts, ...retry };
    const acksBefore = this.acks.length;
    this.envelopes.push({ ...envelope, connection: conn.info.id, at: this.ctx.now() });
    conn.ws.send(JSON.stringify(envelope));
    const remaining = Math.max(0, timeoutMs - (Date.now() - started));
    return this.waiters.until(
      () => this.acks.slice(acksBefore).find((a) => a.envelope_id === envelopeId),
      remaining,
      () => `the app's ack of ${type} envelope ${envelopeId} (Slack waits 3 s)`,
    );
  }

  /** See {@link FakeSocketMode.disconnect}. */
  disconnect(reason: SocketDisconnectReason, opts: { close?: boolean } = {}): void {
    for (const conn of [...this.open]) {
      conn.ws.send(JSON.stringify({ type: 'disconnect', reason, debug_info: { host: this.host(conn) } }));
      if (opts.close) conn.ws.close(1000);
    }
  }

  /** See {@link FakeSocketMode.drop}: `terminate()`s each socket, so the client sees close code 1006. */
  drop(): void {
    for (const conn of [...this.open]) conn.ws.terminate();
  }

  /** Close every socket and stop accepting new ones. */
  async close(): Promise<void> {
    this.drop();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }
}
