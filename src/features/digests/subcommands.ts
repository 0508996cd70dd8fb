import type { WebClient } from '@slack/web-api';
import type { Queue } from 'bullmq';
import { audit } from '../../platform/audit.js';
import type { Logger } from '../../platform/logger.js';
import type { Redis } from 'ioredis';
import { Quota } from '../../platform/quota.js';
import { nextSlotText, slackDateText } from '../../platform/slack/dates.js';
import { CANNOT_POST, INVITE_FIRST, slackErrorCode } from '../../platform/slack/errors.js';
import { quoteToken, SLACK_LIMITS } from '../../platform/slack/limits.js';
import type { Respond } from '../../platform/slack/respond.js';
import type { Caller, VisitorsSubcommands } from '../visitors/index.js';
import { describeSchedule, parseScheduleArgs, type DigestSchedule } from './schedule.js';
import {
  describeSections,
  DIGEST_SECTIONS,
  SECTIONS_USAGE,
  takeSectionsOption,
  type DigestSection,
} from './sections.js';
import {
  getSubscription,
  listSubscriptions,
  sendDigestNow,
  subscribeChannel,
  unsubscribeChannel,
  type DigestJobData,
} from './store.js';

/** What the digest subcommands of `/docs-visitors` need. */
export interface DigestCommandDeps {
  digestQueue: Queue<DigestJobData>;
  /** Posts the (un)subscription notice in the channel; conversations.members for `subscriptions`. */
  slack: { chat: Pick<WebClient['chat'], 'postMessage'>; conversations: Pick<WebClient['conversations'], 'members'> };
  /** DIGEST_CRON and DIGEST_TZ. */
  defaultSchedule: DigestSchedule;
  /** Per-person and per-channel shares of what the subcommands spend (see {@link createDigestQuotas}). */
  quotas: DigestQuotas;
  logger: Logger;
  now: () => number;
}

/** Manual digests per channel per hour (`/docs-visitors digest`). */
export const MANUAL_DIGESTS_PER_CHANNEL_PER_HOUR = 1;
/** One `/docs-visitors subscriptions` per person per this many seconds. */
export const SUBSCRIPTIONS_COOLDOWN_S = 60;
/** conversations.members pages (≤ 1000 members each) read per subscribed channel by `subscriptions`. */
export const MEMBER_PAGES_PER_CHANNEL = 5;
/** conversations.members pages read in all by one `subscriptions` (Slack Tier 4, ~100/min, shared with the rest of the bot). */
export const MEMBER_PAGES_PER_LIST = 20;

/** The quotas of the digest subcommands, shared by every replica through Redis. */
export interface DigestQuotas {
  /** Keyed `team:channel`: {@link MANUAL_DIGESTS_PER_CHANNEL_PER_HOUR}. */
  manualDigest: Pick<Quota, 'take' | 'give'>;
  /** Keyed by user id: one list per {@link SUBSCRIPTIONS_COOLDOWN_S}. */
  subscriptions: Pick<Quota, 'take'>;
}

/** Builds the digest subcommands' quotas (keys under `${QUEUE_PREFIX}:digests:quota:`). */
export function createDigestQuotas(redis: Redis, prefix: string): DigestQuotas {
  return {
    manualDigest: new Quota(redis, {
      keyPrefix: `${prefix}:digests:quota:manual`,
      points: MANUAL_DIGESTS_PER_CHANNEL_PER_HOUR,
      durationS: 3600,
    }),
    subscriptions: new Quota(redis, {
      keyPrefix: `${prefix}:digests:quota:subscriptions`,
      points: 1,
      durationS: SUBSCRIPTIONS_COOLDOWN_S,
    }),
  };
}

/** Names of the digest subcommands, as typed after `/docs-visitors`. */
export const DIGEST_SUBCOMMANDS = ['subscribe', 'unsubscribe', 'subscriptions', 'digest'] as const;

/**
 * The digests feature's `/docs-visitors` subcommands: `subscribe [DAY] [HH:MM] [TIME_ZONE]`,
 * `unsubscribe`, `subscriptions` and `digest` (send one now), plugged into the visitors command.
 * Mistakes are found before the ack (no network) and answered in it.
 */
export function digestSubcommands(deps: DigestCommandDeps): VisitorsSubcommands {
  return {
    names: DIGEST_SUBCOMMANDS,
    helpLines: [
      `• \`/docs-visitors subscribe [DAY] [HH:MM] [TIME_ZONE] [sections=…]\`: a weekly digest in this channel ` +
        `(default ${describeSchedule(deps.defaultSchedule)}); ${SECTIONS_USAGE}`,
      "• `/docs-visitors unsubscribe` · `/docs-visitors subscriptions` (this workspace) · `/docs-visitors digest` (send this channel's digest now)",
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

const STORAGE_DOWN = "(the bot's storage did not answer); try again in a moment.";

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
      await respond({ response_type: 'ephemeral', text: `${INVITE_FIRST} No digest was scheduled.` });
      return;
    }
    await respond({ response_type: 'ephemeral', text: `Subscribed: ${when}.${next}` });
  }
}

async function runUnsubscribe(deps: DigestCommandDeps, respond: Respond, caller: Caller): Promise<void> {
  let removed: boolean;
  try {
    removed = await unsubscribeChannel(deps.digestQueue, caller.teamId, caller.channel);
  } catch {
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

/**
 * Takes one use of `quota` for `key`; when it is used up, tells the person (ephemeral, with the next
 * free slot) and returns false. A quota that cannot be read refuses too (fail closed).
 */
async function takeOrTell(
  deps: DigestCommandDeps,
  respond: Respond,
  quota: Pick<Quota, 'take'>,
  key: string,
  refusal: string,
): Promise<boolean> {
  let taken: Awaited<ReturnType<Quota['take']>>;
  try {
    taken = await quota.take(key);
  } catch (err) {
    deps.logger.warn({ err }, 'could not read a digest quota; refused');
    await respond({ response_type: 'ephemeral', text: `I couldn't check how often this was asked ${STORAGE_DOWN}` });
    return false;
  }
  if (taken.ok) return true;
  await respond({
    response_type: 'ephemeral',
    text: `${refusal} ${nextSlotText(deps.now(), taken.msBeforeNext, undefined)}`,
  });
  return false;
}

async function runSubscriptions(deps: DigestCommandDeps, respond: Respond, caller: Caller): Promise<void> {
  const cooldown = `You asked for the list moments ago (one list a person every ${SUBSCRIPTIONS_COOLDOWN_S} seconds).`;
  if (!(await takeOrTell(deps, respond, deps.quotas.subscriptions, caller.user, cooldown))) return;
  let subs: Awaited<ReturnType<typeof listSubscriptions>>;
  let unchecked: number;
  try {
    ({ seen: subs, unchecked } = await visibleTo(
      deps,
      caller,
      await listSubscriptions(deps.digestQueue, caller.teamId),
    ));
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
      ? `\n_${unchecked} more subscribed channel${unchecked === 1 ? '' : 's'} not checked (too many members to look through); run it in one of them to see its digest._`
      : '';
  if (subs.length === 0) {
    await respond({
      response_type: 'ephemeral',
      text: `None of your channels gets the weekly docs digest yet. Run \`/docs-visitors subscribe\` in one.${uncheckedNote}`,
    });
    return;
  }
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
  await respond({ response_type: 'ephemeral', text: [head, ...lines].join('\n') + uncheckedNote });
}

/**
 * The subscriptions the caller may see: this channel's, and those of channels they are a member of
 * (Slack conversations.members), so private channels stay private. Reads at most
 * {@link MEMBER_PAGES_PER_CHANNEL} pages a channel and {@link MEMBER_PAGES_PER_LIST} in all; a
 * channel whose member list was not read to the end is left out and counted as `unchecked`.
 */
async function visibleTo<T extends { channel: string }>(
  deps: DigestCommandDeps,
  caller: Caller,
  subs: T[],
): Promise<{ seen: T[]; unchecked: number }> {
  const seen: T[] = [];
  const pages = { left: MEMBER_PAGES_PER_LIST };
  let unchecked = 0;
  for (const s of subs) {
    if (s.channel === caller.channel) {
      seen.push(s);
      continue;
    }
    // A channel Slack won't list members of (archived, the bot removed) is left out: private by default.
    const member = await isMember(deps, s.channel, caller.user, pages).catch((err: unknown) => {
      deps.logger.warn(
        { err, channel: s.channel },
        "could not read a subscribed channel's members; left out of the list",
      );
      return false;
    });
    if (member === 'unknown') unchecked++;
    else if (member) seen.push(s);
  }
  return { seen, unchecked };
}

/** Whether `user` is in `channel`, or `unknown` when the page caps stopped the read first. */
async function isMember(
  deps: DigestCommandDeps,
  channel: string,
  user: string,
  pages: { left: number },
): Promise<boolean | 'unknown'> {
  let cursor: string | undefined;
  for (let read = 0; read < MEMBER_PAGES_PER_CHANNEL; read++) {
    if (pages.left <= 0) return 'unknown';
    pages.left--;
    const res = await deps.slack.conversations.members({ channel, limit: 1000, ...(cursor ? { cursor } : {}) });
    if (res.members?.includes(user)) return true;
    cursor = res.response_metadata?.next_cursor || undefined;
    if (!cursor) return false;
  }
  return 'unknown';
}

async function runDigestNow(deps: DigestCommandDeps, respond: Respond, caller: Caller): Promise<void> {
  const slot = `${caller.teamId}:${caller.channel}`;
  const once =
    "This channel's digest was already sent on request in the last hour (one `/docs-visitors digest` per channel per hour; the weekly schedule is not affected).";
  if (!(await takeOrTell(deps, respond, deps.quotas.manualDigest, slot, once))) return;
  try {
    await queueDigestNow(deps, {
      teamId: caller.teamId,
      channel: caller.channel,
      requestedBy: caller.user,
      ...(caller.responseUrl ? { responseUrl: caller.responseUrl } : {}),
    });
  } catch (err) {
    deps.logger.warn({ err }, 'could not queue a digest on request');
    await deps.quotas.manualDigest
      .give(slot)
      .catch((e: unknown) => deps.logger.warn({ err: e }, 'could not give back a manual digest slot'));
    await respond({ response_type: 'ephemeral', text: `I couldn't queue the digest ${STORAGE_DOWN}` });
    return;
  }
  await respond({
    response_type: 'ephemeral',
    text: ":hourglass_flowing_sand: Sending this channel's digest now (a test delivery: the schedule doesn't change).",
  });
}

/**
 * Queues one digest for a channel now, in the time zone of its subscription (else DIGEST_TZ).
 * @throws the BullMQ/Redis error when it cannot be queued.
 */
export async function queueDigestNow(
  deps: Pick<DigestCommandDeps, 'digestQueue' | 'defaultSchedule' | 'now'>,
  req: { teamId: string; channel: string; requestedBy: string; responseUrl?: string },
): Promise<void> {
  const sub = await getSubscription(deps.digestQueue, req.teamId, req.channel);
  const sections = sub ? { sections: sub.sections } : {};
  const tz = sub?.schedule.tz ?? deps.defaultSchedule.tz;
  await sendDigestNow(deps.digestQueue, { ...req, tz, ...sections }, deps.now());
}
