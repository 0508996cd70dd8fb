import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Registry } from 'prom-client';
import type { Logger } from './logger.js';

/**
 * Whether an `Authorization` header carries `Bearer <token>` (RFC 6750 §2.1; the scheme is
 * case-insensitive). Compared in constant time: both sides are hashed with SHA-256 first, so
 * neither the token's content nor its length leaks through timing.
 */
export function bearerTokenMatches(header: string | undefined, token: string): boolean {
  const m = /^Bearer[ ]+(\S+)\s*$/i.exec(header ?? '');
  const given = createHash('sha256')
    .update(m?.[1] ?? '')
    .digest();
  const expected = createHash('sha256').update(token).digest();
  return timingSafeEqual(given, expected) && m !== null;
}

/** Options of {@link metricsHandler}. */
interface MetricsHandlerOptions {
  registry: Registry;
  /** METRICS_TOKEN: when set, a scrape must send `Authorization: Bearer <token>`, else 401. Never logged. */
  token?: string;
  logger: Logger;
}

/**
 * Answers `GET /metrics` with the registry in Prometheus' text exposition format (version 0.0.4).
 * With a token, a request without the right bearer token gets 401 with `WWW-Authenticate: Bearer`
 * and one warning line (the header's value is never logged). A registry that fails to collect
 * answers 500 and logs the error.
 */
export function metricsHandler(opts: MetricsHandlerOptions) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (opts.token !== undefined && !bearerTokenMatches(req.headers.authorization, opts.token)) {
      opts.logger.warn(
        { hasAuthorization: req.headers.authorization !== undefined },
        'refused a /metrics scrape without the right METRICS_TOKEN',
      );
      res.writeHead(401, { 'content-type': 'text/plain; charset=utf-8', 'www-authenticate': 'Bearer realm="metrics"' });
      res.end('unauthorized\n');
      return;
    }
    let body: string;
    try {
      body = await opts.registry.metrics();
    } catch (err) {
      opts.logger.error({ err }, 'could not collect metrics');
      res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('could not collect metrics\n');
      return;
    }
    res.writeHead(200, { 'content-type': opts.registry.contentType, 'cache-control': 'no-store' });
    res.end(body);
  };
}

/**
 * HTTP mode without METRICS_TOKEN: `/metrics` is served on PORT, the port that must be public for
 * Slack's `POST /slack/events`, to anyone who reaches it. One warn line at start-up saying so
 * (nothing in Socket Mode, whose port need not be public, nor with the token set).
 * @returns whether the line was written.
 */
export function warnOpenMetrics(
  config: { SLACK_APP_TOKEN?: string | undefined; METRICS_TOKEN?: string | undefined },
  logger: Pick<Logger, 'warn'>,
): boolean {
  if (config.SLACK_APP_TOKEN || config.METRICS_TOKEN) return false;
  logger.warn(
    '/metrics is served on the public Slack port (PORT, next to /slack/events) without a token: ' +
      'set METRICS_TOKEN, or let the proxy in front pass only /slack/* (docs/operations.md "Monitoring")',
  );
  return true;
}
