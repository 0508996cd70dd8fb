import type { WebClient } from '@slack/web-api';
import type { TellPerson } from '../intake-admission.js';
import type { ReplyTo } from '../intake-kind.js';
import type { Logger } from '../logger.js';
import { postToResponseUrl } from './respond.js';

/**
 * A {@link TellPerson} for the intake: through the record's `response_url` when it has one (works
 * where the bot is not a member; Slack: 5 uses within 30 minutes), else an ephemeral message to
 * the user in the channel (`chat.postEphemeral`, in the thread when one is named). A failure is one
 * warning and resolves false; so does a record that names neither.
 */
export function tellPersonVia(slack: { chat: Pick<WebClient['chat'], 'postEphemeral'> }, logger: Logger): TellPerson {
  return async (to: ReplyTo, text: string) => {
    try {
      if (to.responseUrl) {
        await postToResponseUrl(to.responseUrl, { response_type: 'ephemeral', replace_original: false, text });
        return true;
      }
      if (!to.user || !to.channel) return false;
      await slack.chat.postEphemeral({ channel: to.channel, user: to.user, text, ...(to.threadTs ? { thread_ts: to.threadTs } : {}) });
      return true;
    } catch (err) {
      logger.warn({ err }, 'could not tell the person that their request was not handled');
      return false;
    }
  };
}
