import type { Logger } from '../logger.js';
import { tellPrivately } from './tell.js';

/**
 * Answers a request that is refused before any listener runs, or that no listener took: the
 * request is acked, a slash command's ack carrying `text` as an ephemeral answer (anything else an
 * empty ack); then, when `tell` is given and the request is not a command, the person is told
 * `text` through the body's `response_url`, when it has one (a new ephemeral message,
 * `replace_original: false`; `tell.failure` is the warn line when that fails). Leave `tell` out
 * when the response_url must not be used (one that is not Slack's). Used by the workspace guard
 * (org-workspace-guard.ts), the response_url guard (response-url-guard.ts) and the edge's answer to
 * what no listener took (edge.ts). Never throws, but for `ack`'s own error.
 * @param ack - Bolt's `ack` of the request (a global middleware's; absent for events: nothing is acked).
 * @param body - the request's body (a command is one whose `command` is a string).
 */
export async function refuseUnheard(
  ack: ((response?: unknown) => Promise<void> | void) | undefined,
  body: Record<string, unknown>,
  text: string,
  tell?: { logger: Logger; failure: string },
): Promise<void> {
  const isCommand = typeof body.command === 'string';
  if (ack) await ack(isCommand ? { response_type: 'ephemeral', text } : undefined);
  const responseUrl = typeof body.response_url === 'string' ? body.response_url : undefined;
  if (isCommand || !tell || !responseUrl) return;
  await tellPrivately({ logger: tell.logger }, { responseUrl }, text, { failure: tell.failure });
}
