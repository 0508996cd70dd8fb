import type { Logger } from '../../../platform/logger.js';
import type { ConversationDirectory } from '../../../platform/slack/conversations.js';
import { slackDateText } from '../../../platform/slack/dates.js';
import { SLACK_LIMITS } from '../../../platform/slack/limits.js';
import type { Respond } from '../../../platform/slack/respond.js';
import { type Caller } from '../intake.js';
import type { DigestQuotas } from './quotas.js';
import { SUBSCRIPTIONS_COOLDOWN_S, takeOrTell } from './quotas.js';
import { describeSchedule } from '../../../platform/calendar.js';
import { describeSections, DIGEST_SECTIONS } from './sections.js';
import { listSubscriptions, type DigestJobData } from './store.js';
import type { Queue } from 'bullmq';

/**
 * `/docs-visitors subscriptions`: the weekly digests of the workspace that the person may see (this
 * channel's, and those of channels they are in), one list a person a minute.
 */

/** What the list needs. */
export interface SubscriptionsListDeps {
  digestQueue: Queue<DigestJobData>;
  /**
   * Which channels the person is in, from their own conversation list (users.conversations on the
   * client that rejects 429s; budgeted per person and in all): never the channels' member lists.
   */
  conversations: Pick<ConversationDirectory, 'membershipsOf'>;
  quotas: Pick<DigestQuotas, 'subscriptions'>;
  logger: Logger;
  now: () => number;
}

/** Lists the subscriptions `caller` may see, privately (see the module's comment). */
export async function runSubscriptions(deps: SubscriptionsListDeps, respond: Respond, caller: Caller): Promise<void> {
  const cooldown = `You asked for the list moments ago (one list a person every ${SUBSCRIPTIONS_COOLDOWN_S} seconds).`;
  const tell = (text: string) => respond({ response_type: 'ephemeral', text });
  if (!(await takeOrTell(deps, tell, deps.quotas.subscriptions, caller.user, cooldown))) return;
  let subs: Awaited<ReturnType<typeof listSubscriptions>>;
  let unchecked: number;
  try {
    const all = await listSubscriptions(deps.digestQueue, caller.teamId);
    ({ seen: subs, unchecked } = await visibleTo(deps, caller, all));
  } catch (err) {
    deps.logger.warn({ err }, 'could not list the digest subscriptions');
    await respond({
      response_type: 'ephemeral',
      text: "I couldn't read the subscriptions (my storage or Slack did not answer); try again in a moment.",
    });
    return;
  }
  const uncheckedNote =
    unchecked > 0
      ? `\n_${unchecked} more subscribed channel${unchecked === 1 ? '' : 's'} not checked (I couldn't read your ` +
        'channel list far enough just now); try again in a minute, or run it in one of them._'
      : '';
  if (subs.length === 0) {
    await respond({
      response_type: 'ephemeral',
      text: `None of your channels gets the weekly docs digest yet. Run \`/docs-visitors subscribe\` in one.${uncheckedNote}`,
    });
    return;
  }
  await respond({ response_type: 'ephemeral', text: listText(subs) + uncheckedNote });
}

/** The list in words, cut to one section's text. */
function listText(subs: Awaited<ReturnType<typeof listSubscriptions>>): string {
  const head = `*Weekly docs digests in your channels* (${subs.length})`;
  const lines: string[] = [];
  let size = head.length;
  for (const [i, s] of subs.entries()) {
    const next = s.nextRunMs !== undefined ? ` · next ${slackDateText(s.nextRunMs, s.schedule.tz)}` : '';
    const only = s.sections.length < DIGEST_SECTIONS.length ? ` · ${describeSections(s.sections)}` : '';
    const l = `• <#${s.channel}> · ${describeSchedule(s.schedule)}${next}${only} · subscribed by <@${s.requestedBy}>`;
    if (size + l.length + 40 > SLACK_LIMITS.sectionText) {
      lines.push(`…and ${subs.length - i} more`);
      break;
    }
    lines.push(l);
    size += l.length + 1;
  }
  return [head, ...lines].join('\n');
}

/**
 * The subscriptions the caller may see: this channel's, and those of channels they are a member of
 * (their own conversation list: usually one Slack call, whatever the number of subscriptions), so
 * private channels stay private. A channel the list could not answer for is left out and counted
 * as `unchecked`.
 * @throws Slack's errors of the list read (other than a rate limit).
 */
async function visibleTo<T extends { channel: string }>(
  deps: SubscriptionsListDeps,
  caller: Caller,
  subs: T[],
): Promise<{ seen: T[]; unchecked: number }> {
  const others = [...new Set(subs.map((s) => s.channel).filter((c) => c !== caller.channel))];
  const member = others.length > 0 ? await deps.conversations.membershipsOf(caller.user, others) : new Map();
  const seen = subs.filter((s) => s.channel === caller.channel || member.get(s.channel) === true);
  const unchecked = others.filter((c) => member.get(c) === 'unknown').length;
  return { seen, unchecked };
}
