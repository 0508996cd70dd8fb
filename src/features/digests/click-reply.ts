import type { RespondFn } from '@slack/bolt';
import type { Logger } from '../../platform/logger.js';

/**
 * A private answer to whoever clicked, through the click's response_url (Bolt's `respond`, which
 * Bolt leaves out when the payload has no response_url: Slack sends one with every message button,
 * so such a click is malformed and is answered nowhere, with a warning). A response_url that is
 * expired or used up (Slack answers 404) is a warning too. Never throws.
 */
export function clickReply(respond: RespondFn | undefined, logger: Logger): (text: string) => Promise<void> {
  return async (text) => {
    if (typeof respond !== 'function') {
      logger.warn('a click came without a response_url; the person could not be answered');
      return;
    }
    await respond({ response_type: 'ephemeral', replace_original: false, text }).catch((err: unknown) =>
      logger.warn({ err }, 'could not answer through the response_url'),
    );
  };
}
