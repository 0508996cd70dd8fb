/**
 * A docs team that breaks after it was set (its channel archived, deleted or left by the bot, its
 * user group deleted): the person who clicked Ask the docs team is told plainly what happened and
 * what to do, the person who last changed the channel's settings is told by DM at most once per
 * channel per day ({@link EXPERTS_BROKEN_TOLD_S}), and a warn line names the channel, the team and
 * Slack's reason (never the question).
 */
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../../platform/logger.js';
import { slackErrorCode } from '../../platform/slack/errors.js';
import { EXPERTS_USAGE, type Experts } from '../settings/index.js';
import type { AskStore } from './store.js';

/** How long after telling a channel's settings owner that its docs team broke they are not told again: a day, in s. */
const EXPERTS_BROKEN_TOLD_S = 86_400;

/** What reporting a broken docs team needs. */
interface ExpertsBrokenDeps {
  store: Pick<AskStore, 'markExpertsBrokenTold'>;
  slack: { chat: Pick<WebClient['chat'], 'postMessage'> };
  /** Who last changed `channel`'s settings (the settings' `updatedBy`), or undefined. @throws the Redis error. */
  settingsOwnerOf?: (channel: string) => Promise<string | undefined>;
  logger: Logger;
}

/**
 * Why Slack refused the post to the docs team (chat.postMessage's `error`: `not_in_channel`,
 * `channel_not_found`, `is_archived`, `restricted_action`), as a sentence saying what to do. A
 * channel team: the post in its channel; a user group: the mention of it in the question's own
 * channel, so the fix is there (or a channel as the team), never another channel for the group.
 */
export function refusedPostProblem(e: Experts, code: string | undefined): string {
  if (e.kind === 'usergroup') return groupPostProblem(e.id, code);
  const where = `<#${e.id}>`;
  switch (code) {
    case 'not_in_channel':
      return `I'm no longer in ${where}: invite me back (\`/invite @Docs Agent\`) or name another channel.`;
    case 'channel_not_found':
      return `I can't find ${where} any more (deleted, or private and I was removed): name another channel.`;
    case 'is_archived':
      return `${where} is archived: name another channel.`;
    default:
      return `Slack doesn't let me post in ${where} (${code ?? 'refused'}): name another channel.`;
  }
}

/** {@link refusedPostProblem} for a user group: mentioning it in this (the question's) channel failed. */
function groupPostProblem(group: string, code: string | undefined): string {
  const mention = `I mention <!subteam^${group}> in this channel's thread`;
  switch (code) {
    case 'not_in_channel':
    case 'channel_not_found':
      return `${mention}, and I'm no longer in this channel: invite me back (\`/invite @Docs Agent\`).`;
    case 'is_archived':
      return `${mention}, and this channel is archived: ask in another channel.`;
    default:
      return (
        `${mention}, and Slack doesn't let me post here (${code ?? 'refused'}): ` +
        `name a channel as the docs team instead (\`/docs-settings experts #channel\`).`
      );
  }
}

/**
 * Reports that `channel`'s docs team `e` can't be reached (`problem`: a sentence naming what to do;
 * `reason`: Slack's error code or the check's finding, for the log). Never throws: the owner's DM
 * and its note are best effort (a failure is a warn line).
 * @returns the sentence for the person who clicked.
 */
export async function reportBrokenExperts(
  deps: ExpertsBrokenDeps,
  channel: string,
  e: Experts,
  problem: string,
  reason: string,
): Promise<string> {
  deps.logger.warn({ channel, experts: e.id, reason }, 'the docs team set for a channel cannot be reached');
  const owner = await tellOwner(deps, channel, problem).catch((err: unknown) => {
    deps.logger.warn(
      { channel, slackError: slackErrorCode(err) },
      'could not tell the settings owner that the docs team is unreachable',
    );
    return undefined;
  });
  const told = owner ? ` I've told <@${owner}>, who last changed this channel's settings.` : '';
  return `I couldn't ask the docs team: ${problem} An admin can fix it with \`/docs-settings experts\`.${told}`;
}

/** DMs the settings owner, once per channel per day (noted before the post: a crash loses a notice, never doubles it). */
async function tellOwner(deps: ExpertsBrokenDeps, channel: string, problem: string): Promise<string | undefined> {
  const owner = await deps.settingsOwnerOf?.(channel);
  if (!owner) return undefined;
  if (!(await deps.store.markExpertsBrokenTold(channel, EXPERTS_BROKEN_TOLD_S))) return owner;
  const text =
    `The docs team set for <#${channel}> can't be reached, so Ask the docs team there asks no one: ${problem} ` +
    `Fix it with \`/docs-settings ${EXPERTS_USAGE}\` in <#${channel}>. ` +
    `I'll tell you again tomorrow at the earliest if it's still broken.`;
  await deps.slack.chat.postMessage({ channel: owner, text, unfurl_links: false, unfurl_media: false });
  return owner;
}
