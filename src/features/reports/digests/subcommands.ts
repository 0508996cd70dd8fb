import type { WebClient } from '@slack/web-api';
import type { Queue } from 'bullmq';
import { audit } from '../../../platform/audit.js';
import type { Logger } from '../../../platform/logger.js';
import { slackDateText } from '../../../platform/slack/dates.js';
import { CANNOT_POST, cannotPostHereText, slackErrorCode } from '../../../platform/slack/errors.js';
import { quoteToken } from '../../../platform/slack/limits.js';
import type { Respond } from '../../../platform/slack/respond.js';
import type { AccessAction } from '../../../platform/access.js';
import { type Caller } from '../intake.js';
import { describeSchedule } from '../../../platform/calendar.js';
import { parseScheduleArgs, type DigestSchedule } from './schedule.js';
import { manualDigestSlot, MANUAL_DIGEST_USED, STORAGE_DOWN, takeOrTell, type DigestQuotas } from './quotas.js';
import { describeSections, SECTIONS_USAGE, takeSectionsOption, type DigestSection } from './sections.js';
import { runSubscriptions, type SubscriptionsListDeps } from './subscriptions-list.js';
import { getSubscription, sendDigestNow, subscribeChannel, unsubscribeChannel, type DigestJobData } from './store.js';

/** What the digest subcommands of `/docs-visitors` need. */
export interface DigestCommandDeps extends SubscriptionsListDeps {
  digestQueue: Queue<DigestJobData>;
  /** Posts the (un)subscription notice in the channel. */
  slack: { chat: Pick<WebClient['chat'], 'postMessage'> };
  /** DIGEST_CRON and DIGEST_TZ. */
  defaultSchedule: DigestSchedule;
  /** Per-person and per-channel shares of what the subcommands spend (quotas.ts). */
  quotas: DigestQuotas;
  logger: Logger;
  now: () => number;
}

/**
 * The digest subcommands of `/docs-visitors` (`subscribe`, …), as the command (command.ts) checks
 * them before the ack and the subcommand handler runs them from the intake.
 */
export interface DigestSubcommands {
  /** Names handled, lower case. */
  names: readonly string[];
  /** Lines of `/docs-visitors help` (mrkdwn bullets) and examples (inline code). */
  helpLines: readonly string[];
  examples: readonly string[];
  /**
   * Checks the words after the name (pure: no network), in the listener before the ack and again
   * in the worker. @returns what to run, or the ephemeral answer for a mistake.
   */
  prepare(
    name: string,
    args: string[],
  ): { ok: true; run(caller: Caller, respond: Respond): Promise<void> } | { ok: false; message: string };
  /** What running `name` amounts to, for the access gate (e.g. `subscribe` → `manage_digests`). */
  actionOf(name: string): AccessAction;
}

/** Names of the digest subcommands, as typed after `/docs-visitors`. */
export const DIGEST_SUBCOMMANDS = ['subscribe', 'unsubscribe', 'subscriptions', 'digest'] as const;

/**
 * The digest subcommands of `/docs-visitors`: `subscribe [DAY] [HH:MM] [TIME_ZONE]`,
 * `unsubscribe`, `subscriptions` and `digest` (send one now), as the command (command.ts) takes them.
 * Mistakes are found before the ack (no network) and answered in it.
 */
export function digestSubcommands(deps: DigestCommandDeps): DigestSubcommands {
  return {
    names: DIGEST_SUBCOMMANDS,
    helpLines: [
      `• \`/docs-visitors subscribe [DAY] [HH:MM] [TIME_ZONE] [sections=…]\`: a weekly digest in this channel ` +
        `(default ${describeSchedule(deps.defaultSchedule)}); ${SECTIONS_USAGE}`,
      "• `/docs-visitors unsubscribe` · `/docs-visitors subscriptions` (this channel's and those of the channels you're in) · `/docs-visitors digest` (send this channel's digest now)",
    ],
    examples: ['`/docs-visitors subscribe mon 09:00 Europe/Berlin`'],
    actionOf: (name) => (name === 'subscriptions' ? 'read_reports' : 'manage_digests'),
    prepare(name, args) {
      if (name === 'subscribe') {
        const option = takeSectionsOption(args);
        if (!option.ok) return option;
        const parsed = parseScheduleArgs(option.rest, deps.defaultSchedule);
        if (!parsed.ok) return { ok: false, message: parsed.message };
        const chosen = { schedule: parsed.schedule, sections: option.sections };
        return { ok: true, run: (caller, respond) => runSubscribe(deps, respond, caller, chosen) };
      }
      if (args.length > 0) {
        return {
          ok: false,
          message: `:warning: \`${name}\` takes no arguments (found \`${quoteToken(args.join(' '))}\`).\n*Usage:* \`/docs-visitors ${name}\``,
        };
      }
      const run = name === 'unsubscribe' ? runUnsubscribe : name === 'subscriptions' ? runSubscriptions : runDigestNow;
      return { ok: true, run: (caller, respond) => run(deps, respond, caller) };
    },
  };
}

async function runSubscribe(
  deps: DigestCommandDeps,
  respond: Respond,
  caller: Caller,
  chosen: { schedule: DigestSchedule; sections?: DigestSection[] | undefined },
): Promise<void> {
  const { schedule, sections } = chosen;
  let before: Awaited<ReturnType<typeof getSubscription>>;
  let sub: Awaited<ReturnType<typeof subscribeChannel>>;
  try {
    before = await getSubscription(deps.digestQueue, caller.teamId, caller.channel);
    const req = { teamId: caller.teamId, channel: caller.channel, requestedBy: caller.user, schedule, sections };
    sub = await subscribeChannel(deps.digestQueue, req);
  } catch (err) {
    deps.logger.error({ err }, 'could not save a digest subscription');
    await respond({ response_type: 'ephemeral', text: `I couldn't save the subscription ${STORAGE_DOWN}` });
    return;
  }
  audit(deps.logger, {
    actor: caller.user,
    channel: caller.channel,
    action: before ? 'digest.reschedule' : 'digest.subscribe',
    outcome: 'ok',
    schedule: sub.schedule,
  });
  const when = `${describeSchedule(sub.schedule)}, ${describeSections(sub.sections)}`;
  const next = sub.nextRunMs !== undefined ? ` Next delivery: ${slackDateText(sub.nextRunMs, sub.schedule.tz)}.` : '';
  const what = before
    ? `changed this channel's weekly docs digest to ${when} ` +
      `(it was ${describeSchedule(before.schedule)}, ${describeSections(before.sections)}).`
    : `subscribed this channel to the weekly docs digest, ${when}.`;
  const text = `:calendar: <@${caller.user}> ${what}${next}\n\`/docs-visitors digest\` sends one now · \`/docs-visitors unsubscribe\` stops it.`;
  try {
    await deps.slack.chat.postMessage({ channel: caller.channel, text, unfurl_links: false });
  } catch (err) {
    const code = slackErrorCode(err);
    if (code && CANNOT_POST.has(code)) {
      // A digest could never be delivered here: don't keep a subscription that would only fail.
      await unsubscribeChannel(deps.digestQueue, caller.teamId, caller.channel).catch((e: unknown) =>
        deps.logger.warn(
          { err: e, channel: caller.channel },
          'could not remove the subscription of a channel the bot cannot post in',
        ),
      );
      await respond({ response_type: 'ephemeral', text: `${cannotPostHereText(code)} No digest was scheduled.` });
      return;
    }
    await respond({ response_type: 'ephemeral', text: `Subscribed: ${when}.${next}` });
  }
}

async function runUnsubscribe(deps: DigestCommandDeps, respond: Respond, caller: Caller): Promise<void> {
  let removed: boolean;
  try {
    removed = await unsubscribeChannel(deps.digestQueue, caller.teamId, caller.channel);
  } catch (err) {
    deps.logger.warn({ err }, 'could not remove a digest subscription');
    await respond({ response_type: 'ephemeral', text: `I couldn't remove the subscription ${STORAGE_DOWN}` });
    return;
  }
  if (!removed) {
    await respond({
      response_type: 'ephemeral',
      text: "This channel doesn't get the weekly digest. `/docs-visitors subscribe` starts one.",
    });
    return;
  }
  audit(deps.logger, { actor: caller.user, channel: caller.channel, action: 'digest.unsubscribe', outcome: 'ok' });
  const text = `:wave: <@${caller.user}> unsubscribed this channel from the weekly docs digest.`;
  await deps.slack.chat
    .postMessage({ channel: caller.channel, text })
    .catch(() => respond({ response_type: 'ephemeral', text: 'Unsubscribed: no more weekly digests here.' }));
}

async function runDigestNow(deps: DigestCommandDeps, respond: Respond, caller: Caller): Promise<void> {
  const slot = manualDigestSlot(caller.teamId, caller.channel);
  const tell = (text: string) => respond({ response_type: 'ephemeral', text });
  if (!(await takeOrTell(deps, tell, deps.quotas.manualDigest, slot, MANUAL_DIGEST_USED))) return;
  let subscribed: boolean;
  try {
    ({ subscribed } = await queueDigestNow(deps, {
      teamId: caller.teamId,
      channel: caller.channel,
      requestedBy: caller.user,
      ...(caller.responseUrl ? { responseUrl: caller.responseUrl } : {}),
    }));
  } catch (err) {
    deps.logger.warn({ err }, 'could not queue a digest on request');
    await deps.quotas.manualDigest
      .give(slot)
      .catch((e: unknown) => deps.logger.warn({ err: e }, 'could not give back a manual digest slot'));
    await respond({ response_type: 'ephemeral', text: `I couldn't queue the digest ${STORAGE_DOWN}` });
    return;
  }
  await respond({ response_type: 'ephemeral', text: digestNowText(subscribed, deps.defaultSchedule) });
}

/** The ack of `/docs-visitors digest`: an extra delivery of a subscribed channel, or a one-off and how to subscribe. */
export function digestNowText(subscribed: boolean, defaultSchedule: DigestSchedule): string {
  return subscribed
    ? ":hourglass_flowing_sand: Sending this channel's digest now, once more (its weekly schedule doesn't change)."
    : ":hourglass_flowing_sand: Sending this channel's digest now, once: this channel has no weekly digest. " +
        `\`/docs-visitors subscribe [DAY] [HH:MM] [TIME_ZONE] [sections=…]\` starts one (default ${describeSchedule(defaultSchedule)}, every section).\n*Sections:* ${SECTIONS_USAGE}.`;
}

/**
 * Queues one digest for a channel now, in the time zone of its subscription (else DIGEST_TZ).
 * @returns whether the channel has a weekly digest (a subscription).
 * @throws the BullMQ/Redis error when it cannot be queued.
 */
export async function queueDigestNow(
  deps: Pick<DigestCommandDeps, 'digestQueue' | 'defaultSchedule' | 'now'>,
  req: { teamId: string; channel: string; requestedBy: string; responseUrl?: string },
): Promise<{ subscribed: boolean }> {
  const sub = await getSubscription(deps.digestQueue, req.teamId, req.channel);
  const sections = sub ? { sections: sub.sections } : {};
  const tz = sub?.schedule.tz ?? deps.defaultSchedule.tz;
  await sendDigestNow(deps.digestQueue, { ...req, tz, ...sections }, deps.now());
  return { subscribed: sub !== undefined };
}
