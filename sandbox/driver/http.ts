/**
 * Slack's HTTP side towards an app: request signing and the POST itself (Slack docs: "Verifying
 * requests from Slack": `X-Slack-Signature: v0=<hex HMAC-SHA256 of "v0:<timestamp>:<raw body>">` and
 * `X-Slack-Request-Timestamp: <epoch seconds>`; apps should reject timestamps more than five minutes
 * from their clock). Content types are exactly Slack's: events as `application/json`, slash commands
 * and interactivity as `application/x-www-form-urlencoded` (Bolt compares the header verbatim, so no
 * charset is appended).
 */
import { createHmac } from 'node:crypto';

/** The User-Agent Slack's servers send with Events API / interactivity requests. */
export const SLACK_USER_AGENT = 'Slackbot 1.0 (+https://api.slack.com/robots)';

/** The bot's HTTP answer. `json` is set when the body parses as JSON. */
export interface DriverResponse {
  status: number;
  body: string;
  json?: unknown;
}

/**
 * Signature headers for `body` signed with `secret` at `timestampS`.
 * @param timestampS - epoch seconds (any value: past or future, to test the five-minute window).
 * @returns `{ 'X-Slack-Signature': 'v0=<hex>', 'X-Slack-Request-Timestamp': '<seconds>' }`.
 */
export function signatureHeaders(secret: string, body: string, timestampS: number): Record<string, string> {
  const ts = Math.floor(timestampS);
  const signature = createHmac('sha256', secret).update(`v0:${ts}:${body}`).digest('hex');
  return { 'X-Slack-Signature': `v0=${signature}`, 'X-Slack-Request-Timestamp': String(ts) };
}

/**
 * POST `body` to `url` with exactly `headers`.
 * @returns the status and body; never throws on HTTP errors (network errors do throw).
 */
export async function postRaw(url: string, body: string, headers: Record<string, string>): Promise<DriverResponse> {
  const res = await fetch(url, { method: 'POST', headers, body });
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? (JSON.parse(text) as unknown) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, body: text, ...(json === undefined ? {} : { json }) };
}
