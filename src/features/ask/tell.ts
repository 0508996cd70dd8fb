import type { WebClient } from '@slack/web-api';
import type { Logger } from '../../platform/logger.js';
import { postToResponseUrl } from '../../platform/slack/respond.js';

/** What telling one person privately needs. */
export interface TellDeps {
  slack: { chat: Pick<WebClient['chat'], 'postEphemeral'> };
  logger: Logger;
}

/** Where one person can be told privately (a `response_url`, else an ephemeral in `channel`, in `threadTs`). */
export interface TellTarget {
  user: string;
  channel: string;
  responseUrl?: string;
  threadTs?: string;
}

/**
 * Tells one person privately: through the `response_url` when there is one, else
 * `chat.postEphemeral` (in `threadTs` when given). Never throws (a failure is logged).
 */
export async function tellPrivately(deps: TellDeps, to: TellTarget, text: string): Promise<void> {
  try {
    if (to.responseUrl)
      await postToResponseUrl(to.responseUrl, { response_type: 'ephemeral', replace_original: false, text });
    else
      await deps.slack.chat.postEphemeral({
        channel: to.channel,
        user: to.user,
        text,
        ...(to.threadTs ? { thread_ts: to.threadTs } : {}),
      });
  } catch (err) {
    deps.logger.warn({ err }, 'could not answer the person privately');
  }
}
