import type { WebClient } from '@slack/web-api';
import type { JobRecord, JobStore } from '../store/job-store.js';

/**
 * Permalink of the job's thread root (Slack: chat.getPermalink), fetched once and kept in the record.
 * @returns the link, or undefined when Slack would not give one.
 */
export async function threadPermalink(client: WebClient, store: JobStore, rec: JobRecord): Promise<string | undefined> {
  if (rec.permalink) return rec.permalink;
  try {
    const res = await client.chat.getPermalink({ channel: rec.channel, message_ts: rec.threadTs });
    if (!res.permalink) return undefined;
    await store.update(rec.jobId, { permalink: res.permalink });
    return res.permalink;
  } catch {
    return undefined;
  }
}
