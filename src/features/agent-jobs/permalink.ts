import type { WebClient } from '@slack/web-api';
import type { JobRecord, JobStore } from './store.js';

/**
 * Permalink of the job's thread root (Slack: chat.getPermalink), fetched once and kept in the record.
 * @returns the link, or undefined when Slack would not give one (never throws).
 */
export async function threadPermalink(
  slack: { chat: Pick<WebClient['chat'], 'getPermalink'> },
  store: Pick<JobStore, 'update'>,
  rec: JobRecord,
): Promise<string | undefined> {
  if (rec.permalink) return rec.permalink;
  try {
    const res = await slack.chat.getPermalink({ channel: rec.channel, message_ts: rec.threadTs });
    if (!res.permalink) return undefined;
    await store.update(rec.jobId, { permalink: res.permalink });
    return res.permalink;
  } catch {
    return undefined;
  }
}
