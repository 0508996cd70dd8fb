import { Gauge, type Registry } from 'prom-client';
import { METRICS } from './metrics-catalog.js';
import type { EdgeObserver } from './slack/edge.js';

/**
 * Socket Mode's observer: `metrics` (its `onReply`) plus `docs_bot_socket_mode_connected` on
 * `metrics.registry`, 0 until Slack's hello, then 1 while the WebSocket is open and 0 while it is
 * closed or reconnecting. `/healthz` says nothing about the socket (the bot retries it by itself),
 * so this is the signal of a replica that no longer receives requests.
 */
export function socketModeObserver(metrics: EdgeObserver & { registry: Registry }): EdgeObserver {
  const gauge = new Gauge({ ...METRICS.socketModeConnected, registers: [metrics.registry] });
  gauge.set(0);
  return {
    onReply: (kind, outcome, seconds) => metrics.onReply(kind, outcome, seconds),
    onSocketState: (connected) => gauge.set(connected ? 1 : 0),
  };
}
