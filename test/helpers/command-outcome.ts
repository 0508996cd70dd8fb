import type { SlackMessage } from '../../sandbox/fake-slack.js';
import { isStatusMessage, messageText, type Sandbox } from './sandbox.js';

/**
 * What became of one `/docs-edit` (by its instruction), read from the fake Slack and the fake docs
 * API: its status messages, the jobs created for it, the thread replies announcing its end or
 * saying it "may or may not have started" (the kill storm's reading, test/faults/kill-storm.test.ts).
 */
export function commandOutcome(sb: Sandbox, instruction: string) {
  const statuses = sb.slack.messages.filter(
    (m) => isStatusMessage(m) && !m.deleted && !m.ephemeralTo && messageText(m).includes(`> ${instruction}`),
  );
  const status = statuses[0];
  const replies: SlackMessage[] = status
    ? sb.slack.messages.filter(
        (m) => m.thread_ts === status.ts && m.ts !== status.ts && m.bot_id && !m.ephemeralTo && !m.deleted,
      )
    : [];
  const creates = sb.docs.requests.filter(
    (r) =>
      r.method === 'POST' &&
      r.path.endsWith('/job') &&
      (r.body as { prompt?: string } | undefined)?.prompt === instruction,
  ).length;
  return {
    statuses: statuses.length,
    creates,
    announced: replies.filter((m) => m.text.includes('ready for review')).length,
    uncertain: replies.filter((m) => m.text.includes("can't tell me whether it started")).length,
    replies: replies.length,
    starting: statuses.filter((m) => m.text.includes('Starting')).length,
    final: status ? /Pull request ready|May or may not have started/.test(status.text) : false,
    statusText: status?.text,
    statusTs: status?.ts,
  };
}

/** Whether an outcome is what an acknowledged command must end in: one job and one announcement, or the one uncertain notice. */
export function outcomeIsRight(o: ReturnType<typeof commandOutcome>): boolean {
  return (
    o.statuses === 1 &&
    o.starting === 0 &&
    o.final &&
    o.creates <= 1 &&
    o.replies === 1 &&
    (o.announced === 1 ? o.creates === 1 : o.uncertain === 1)
  );
}
