import type { AllMiddlewareArgs, RespondFn, SlackCommandMiddlewareArgs } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Deps } from '../../deps.js';
import { CANNOT_POST, slackErrorCode } from '../../slack/slack-errors.js';
import { SLACK_LIMITS } from '../../slack/limits.js';
import { helpText, parseVisitorsCommand, resolveRange, type RangeSpec } from '../../visitors/query.js';
import { buildReportErrorMessage, loadReport, visitorsServices } from '../../visitors/report-service.js';
import { describeSchedule, slackDateText, type DigestSchedule } from '../../visitors/schedule.js';
import { getSubscription, listSubscriptions, sendDigestNow, subscribeChannel, unsubscribeChannel } from '../../visitors/subscriptions.js';
import { userTimeZone } from '../../visitors/user-time-zone.js';

/** Answer when the bot is not a member of the channel (same wording as /docs-edit). */
export const INVITE_FIRST = "I can't post in this channel yet. Invite me with `/invite @Docs Agent`, then run the command again.";

/** Who ran the command, where. */
interface Caller {
  teamId: string;
  channel: string;
  user: string;
}

/** DIGEST_CRON and DIGEST_TZ as the default schedule. */
function defaultSchedule(deps: Deps): DigestSchedule {
  return { pattern: deps.config.DIGEST_CRON, tz: deps.config.DIGEST_TZ };
}

/**
 * `/docs-visitors …`: acks at once (Slack: within 3 s). Help and every input mistake are answered
 * in the ack itself (ephemeral, no API call); reports, subscriptions and "send now" run after it.
 */
export function docsVisitorsCommand(deps: Deps) {
  return async ({ command, ack, respond, client }: SlackCommandMiddlewareArgs & AllMiddlewareArgs): Promise<void> => {
    const cmd = parseVisitorsCommand(command.text ?? '', { defaultSchedule: defaultSchedule(deps) });
    if (cmd.kind === 'invalid') {
      await ack({ response_type: 'ephemeral', text: cmd.message });
      return;
    }
    if (cmd.kind === 'help') {
      await ack({ response_type: 'ephemeral', text: helpText(defaultSchedule(deps)) });
      return;
    }
    await ack();
    const caller: Caller = { teamId: command.team_id, channel: command.channel_id, user: command.user_id };
    switch (cmd.kind) {
      case 'report':
        return runReport(deps, client, respond, caller, cmd.range, cmd.limit);
      case 'subscribe':
        return runSubscribe(deps, client, respond, caller, cmd.schedule);
      case 'unsubscribe':
        return runUnsubscribe(deps, client, respond, caller);
      case 'subscriptions':
        return runSubscriptions(deps, respond, caller);
      case 'digest':
        return runDigestNow(deps, respond, caller);
    }
  };
}

async function runReport(deps: Deps, client: WebClient, respond: RespondFn, caller: Caller, spec: RangeSpec, limit: number): Promise<void> {
  const svc = visitorsServices(deps);
  const needsZone = !(spec.type === 'dates' && spec.to);
  const zone = needsZone ? await userTimeZone(client, deps.redis, `${deps.config.QUEUE_PREFIX}:visitors`, caller.user, svc.logger) : 'UTC';
  const resolved = resolveRange(spec, deps.now(), zone);
  if (!resolved.ok) {
    await respond({ response_type: 'ephemeral', text: resolved.message });
    return;
  }
  const state = { ...resolved.range, limit, offset: 0, skip: 0, requester: caller.user };
  const loaded = await loadReport(svc, state);
  if (!loaded.ok) {
    await respond({ response_type: 'ephemeral', ...buildReportErrorMessage(loaded.text, state, loaded.retryable) });
    return;
  }
  try {
    await client.chat.postMessage({ channel: caller.channel, text: loaded.message.text, blocks: loaded.message.blocks, unfurl_links: false, unfurl_media: false });
  } catch (err) {
    const code = slackErrorCode(err);
    svc.logger.warn({ slackError: code, channel: caller.channel }, 'could not post a visitors report');
    await respond({
      response_type: 'ephemeral',
      text: code && CANNOT_POST.has(code) ? INVITE_FIRST : 'Slack would not take the report; try again in a moment.',
    });
  }
}

async function runSubscribe(deps: Deps, client: WebClient, respond: RespondFn, caller: Caller, schedule: DigestSchedule): Promise<void> {
  const { logger } = visitorsServices(deps);
  let before: Awaited<ReturnType<typeof getSubscription>>;
  let sub: Awaited<ReturnType<typeof subscribeChannel>>;
  try {
    before = await getSubscription(deps.digestQueue, caller.teamId, caller.channel);
    sub = await subscribeChannel(deps.digestQueue, { teamId: caller.teamId, channel: caller.channel, requestedBy: caller.user, schedule });
  } catch (err) {
    logger.error({ err: { message: (err as Error).message } }, 'could not save a digest subscription');
    await respond({ response_type: 'ephemeral', text: "I couldn't save the subscription (the bot's storage did not answer); try again in a moment." });
    return;
  }
  const when = describeSchedule(sub.schedule);
  const next = sub.nextRunMs !== undefined ? ` Next delivery: ${slackDateText(sub.nextRunMs, sub.schedule.tz)}.` : '';
  const what = before
    ? `changed this channel's weekly docs digest to ${when} (it was ${describeSchedule(before.schedule)}).`
    : `subscribed this channel to the weekly docs digest, ${when}.`;
  const text = `:calendar: <@${caller.user}> ${what}${next}\n\`/docs-visitors digest\` sends one now · \`/docs-visitors unsubscribe\` stops it.`;
  try {
    await client.chat.postMessage({ channel: caller.channel, text, unfurl_links: false });
  } catch (err) {
    const code = slackErrorCode(err);
    if (code && CANNOT_POST.has(code)) {
      // A digest could never be delivered here: don't keep a subscription that would only fail.
      await unsubscribeChannel(deps.digestQueue, caller.teamId, caller.channel).catch(() => undefined);
      await respond({ response_type: 'ephemeral', text: `${INVITE_FIRST} No digest was scheduled.` });
      return;
    }
    await respond({ response_type: 'ephemeral', text: `Subscribed: ${when}.${next}` });
  }
}

async function runUnsubscribe(deps: Deps, client: WebClient, respond: RespondFn, caller: Caller): Promise<void> {
  let removed: boolean;
  try {
    removed = await unsubscribeChannel(deps.digestQueue, caller.teamId, caller.channel);
  } catch {
    await respond({ response_type: 'ephemeral', text: "I couldn't remove the subscription (the bot's storage did not answer); try again in a moment." });
    return;
  }
  if (!removed) {
    await respond({ response_type: 'ephemeral', text: "This channel doesn't get the weekly digest. `/docs-visitors subscribe` starts one." });
    return;
  }
  const text = `:wave: <@${caller.user}> unsubscribed this channel from the weekly docs digest.`;
  await client.chat.postMessage({ channel: caller.channel, text }).catch(() => respond({ response_type: 'ephemeral', text: 'Unsubscribed: no more weekly digests here.' }));
}

async function runSubscriptions(deps: Deps, respond: RespondFn, caller: Caller): Promise<void> {
  let subs: Awaited<ReturnType<typeof listSubscriptions>>;
  try {
    subs = await listSubscriptions(deps.digestQueue, caller.teamId);
  } catch {
    await respond({ response_type: 'ephemeral', text: "I couldn't read the subscriptions (the bot's storage did not answer); try again in a moment." });
    return;
  }
  if (subs.length === 0) {
    await respond({ response_type: 'ephemeral', text: 'No channel in this workspace gets the weekly docs digest yet. Run `/docs-visitors subscribe` in one.' });
    return;
  }
  const head = `*Weekly docs digests in this workspace* (${subs.length})`;
  const lines: string[] = [];
  let size = head.length;
  for (const [i, s] of subs.entries()) {
    const next = s.nextRunMs !== undefined ? ` · next ${slackDateText(s.nextRunMs, s.schedule.tz)}` : '';
    const l = `• <#${s.channel}> · ${describeSchedule(s.schedule)}${next} · subscribed by <@${s.requestedBy}>`;
    if (size + l.length + 40 > SLACK_LIMITS.sectionText) {
      lines.push(`…and ${subs.length - i} more`);
      break;
    }
    lines.push(l);
    size += l.length + 1;
  }
  await respond({ response_type: 'ephemeral', text: [head, ...lines].join('\n') });
}

async function runDigestNow(deps: Deps, respond: RespondFn, caller: Caller): Promise<void> {
  try {
    const sub = await getSubscription(deps.digestQueue, caller.teamId, caller.channel);
    await sendDigestNow(
      deps.digestQueue,
      { teamId: caller.teamId, channel: caller.channel, requestedBy: caller.user, tz: sub?.schedule.tz ?? deps.config.DIGEST_TZ },
      deps.now(),
    );
  } catch {
    await respond({ response_type: 'ephemeral', text: "I couldn't queue the digest (the bot's storage did not answer); try again in a moment." });
    return;
  }
  await respond({ response_type: 'ephemeral', text: ":hourglass_flowing_sand: Sending this channel's digest now (a test delivery: the schedule doesn't change)." });
}
