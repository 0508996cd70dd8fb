import type { Logger } from '../logger.js';
import { responseUrlAllowed } from './respond.js';
import { tellPrivately } from './tell.js';

/**
 * How {@link refuseBeforeListeners} answers: whether the request is a slash command (`isCommand`;
 * absent: guessed from the body, a command being one whose `command` is a string), and either
 * SLACK_API_URL (`slackApiUrl`: a response_url is posted to only when response-url-guard.ts'
 * response-url-guard.ts, respond.ts' `responseUrlAllowed`, whatever ran before) with the warn line when it could
 * not be posted to (`logger`, `failure`), or `responseUrl: 'never'` when it must not be posted to
 * (one that is not Slack's).
 */
export type RefuseOptions = { isCommand?: boolean } & (
  { logger: Logger; failure: string; slackApiUrl: string } | { responseUrl: 'never' }
);

/**
 * Answers a request that is refused before any listener runs, or that no listener took: the
 * request is acked, a slash command's ack carrying `text` as an ephemeral answer (anything else an
 * empty ack); then, unless it is a command or `how.responseUrl` is `'never'`, the person is told
 * `text` through the body's `response_url`, when it has one (a new ephemeral message,
 * `replace_original: false`; only to one {@link responseUrlAllowed} accepts; `how.failure` is the warn
 * line when the post fails). Used by the workspace
 * guard (org-workspace-guard.ts), the response_url guard (response-url-guard.ts, `'never'`) and the
 * edge's answer to what no listener took (edge.ts, which knows the request's kind). Never throws,
 * but for `ack`'s own error.
 * @param ack - Bolt's `ack` of the request (a global middleware's; absent for events: nothing is acked).
 * @param body - the request's body (its `response_url`, and its `command` when `how.isCommand` is absent).
 */
export async function refuseBeforeListeners(
  ack: ((response?: unknown) => Promise<void> | void) | undefined,
  body: Record<string, unknown>,
  text: string,
  how: RefuseOptions,
): Promise<void> {
  const isCommand = how.isCommand ?? typeof body.command === 'string';
  if (ack) await ack(isCommand ? { response_type: 'ephemeral', text } : undefined);
  const responseUrl = typeof body.response_url === 'string' ? body.response_url : undefined;
  if (isCommand || 'responseUrl' in how || !responseUrl) return;
  // The response_url guard already refused a foreign one; checked again here so no order of the
  // middleware can make a refusal post to an address that isn't Slack's.
  if (!responseUrlAllowed(responseUrl, how.slackApiUrl)) return;
  await tellPrivately({ logger: how.logger }, { responseUrl }, text, { failure: how.failure });
}
