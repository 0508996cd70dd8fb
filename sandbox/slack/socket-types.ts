/**
 * Public shapes of the fake Slack's Socket Mode side (see `./socket.ts` for what it mirrors).
 *
 * Slack docs ("Using Socket Mode" / "Socket Mode implementation", api.slack.com/apis/connections/socket
 * and docs.slack.dev/apis/events-api/using-socket-mode): an app calls `apps.connections.open` with its
 * app-level token, connects to the returned WebSocket URL, receives `{type:"hello"}`, then envelopes
 * `{envelope_id, type, payload, accepts_response_payload, retry_attempt?, retry_reason?}` which it must
 * acknowledge within 3 seconds by sending `{envelope_id, payload?}` back. Slack sends
 * `{type:"disconnect", reason}` ("warning", "refresh_requested", "link_disabled") before it closes a
 * connection. Units: `at` values are epoch milliseconds, timeouts milliseconds.
 */

/** The envelope types Slack sends over Socket Mode. */
export type SocketEnvelopeType = 'events_api' | 'slash_commands' | 'interactive';

/** Reasons of Slack's `disconnect` message. */
export type SocketDisconnectReason = 'refresh_requested' | 'link_disabled' | 'warning';

/** An envelope the fake sent. `connection` is the id of the socket it went out on. */
export interface SentEnvelope {
  envelope_id: string;
  type: SocketEnvelopeType;
  payload: unknown;
  accepts_response_payload: boolean;
  retry_attempt?: number;
  retry_reason?: string;
  connection: number;
  at: number;
}

/** An acknowledgement the app sent: `{envelope_id, payload?}` as received, plus which socket and when. */
export interface AckRecord {
  envelope_id: string;
  /** The ack's `payload` (e.g. a slash command's response message, a view_submission `response_action`), if any. */
  payload?: unknown;
  connection: number;
  at: number;
}

/** One WebSocket connection the app opened. `id` counts from 1 in opening order. */
export interface SocketConnectionInfo {
  id: number;
  /** Whether the socket is still open. */
  open: boolean;
  openedAt: number;
  closedAt?: number;
  /** WebSocket pings received from the app (each answered with a pong, as Slack does). */
  pingsReceived: number;
}

/** Options of {@link FakeSocketMode.send}. */
export interface SendEnvelopeOptions {
  /** Envelope id to use (a fresh UUID-like id by default). */
  envelopeId?: string;
  /** Overrides the type's default (`true` for slash_commands and for view_submission / block_suggestion interactions). */
  acceptsResponsePayload?: boolean;
  /** events_api only: Slack's `retry_attempt` (default 0) and `retry_reason` (default ""). */
  retryAttempt?: number;
  retryReason?: string;
  /** How long to wait for an open socket and then for the ack, in ms. Default 3000 (Slack's ack window). */
  timeoutMs?: number;
}

/** The Socket Mode side of a running fake Slack (`FakeSlack.socket`). */
export interface FakeSocketMode {
  /** Number of currently open sockets. */
  readonly connections: number;
  /** Every socket ever opened, in order. */
  readonly history: SocketConnectionInfo[];
  /** Envelopes sent, in order. */
  readonly envelopes: SentEnvelope[];
  /** Acks received, in order (including acks for unknown envelope ids). */
  readonly acks: AckRecord[];
  /**
   * Resolve once socket number `nth` (1-based, counting every connection ever opened; default: any
   * open socket) is open and has been sent `hello`. Rejects after `timeoutMs` (default 5000).
   */
  waitForConnection(opts?: { nth?: number; timeoutMs?: number }): Promise<SocketConnectionInfo>;
  /**
   * Send an envelope of `type` with `payload` over the newest open socket and resolve with the app's ack.
   * Rejects when no socket opens, or no ack arrives, within `opts.timeoutMs` (default 3000).
   */
  send(type: SocketEnvelopeType, payload: unknown, opts?: SendEnvelopeOptions): Promise<AckRecord>;
  /**
   * Send `{type:"disconnect", reason, debug_info:{host}}` on every open socket (the client is expected
   * to reconnect with a new `apps.connections.open`). With `close: true` the fake then closes the
   * sockets itself (close code 1000) as Slack does once the connection is retired.
   */
  disconnect(reason: SocketDisconnectReason, opts?: { close?: boolean }): void;
  /** Drop every open socket without a close handshake (a network failure: the client sees code 1006). */
  drop(): void;
}
