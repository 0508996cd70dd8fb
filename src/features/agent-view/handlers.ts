import { ErrorCode, type WebClient } from '@slack/web-api';
import { LRUCache } from 'lru-cache';
import type { AccessGate } from '../../platform/access.js';
import type { Intake } from '../../platform/intake.js';
import type { Logger } from '../../platform/logger.js';
import type { AgentSurface, SuggestedPrompt } from '../../platform/slack/agent-surface.js';
import { MembersUnknownError, type ConversationDirectory } from '../../platform/slack/conversations.js';
import { classifySlackError, slackErrorCode } from '../../platform/slack/errors.js';
import { latestDiscussionPrompt, promptsFor, PROMPTS_TITLE } from './prompts.js';
import { INTAKE, type PromptsIntake } from './intake.js';
import { hasCode, PlatformErrorCode } from '../../platform/errors.js';

/**
 * The Slack calls the handler makes (besides the agent surface): on a client of their own that
 * rejects a 429 (`rejectRateLimitedCalls`), so a person flipping channels never pauses the client
 * that posts.
 */
export type AgentViewSlack = {
  conversations: Pick<WebClient['conversations'], 'info' | 'history'>;
  chat: Pick<WebClient['chat'], 'getPermalink'>;
};

/** What the handler needs. */
export interface AgentViewDeps {
  slack: AgentViewSlack;
  /** Who is in a conversation (cached per conversation, its reads budgeted; the same answers the message-link rules use). */
  conversations: Pick<ConversationDirectory, 'isMember'>;
  agent: Pick<AgentSurface, 'suggestPrompts'>;
  /** Asking the docs is on: the suggestions include a question. */
  askEnabled?: boolean;
  /** Who may start a job about a channel (its allowed channels, guests, outsiders). */
  access: Pick<AccessGate, 'authorize'>;
  logger: Logger;
  /**
   * Each channel's latest discussion (its name and permalink, or none the bot can offer, including
   * when Slack refused the reads), kept {@link DISCUSSION_TTL_MS}: people switching channels beside
   * the app cost Slack at most three reads per channel a minute, whoever and however often. None:
   * every event reads.
   */
  discussions?: LRUCache<string, Discussion>;
}

/** A channel's latest discussion, or `none` when it has none the bot can offer. */
export type Discussion = { name: string; permalink: string } | { none: true };

/** How long a channel's latest discussion, or Slack's refusal to show it, is kept (ms). */
const DISCUSSION_TTL_MS = 60_000;
/** How long a channel is not read after Slack rate limited a read of it (ms; the client does not wait out Retry-After). */
export const RATE_LIMITED_TTL_MS = 30_000;

/** A cache of the channels' latest discussions ({@link AgentViewDeps.discussions}). */
export function discussionCache(): LRUCache<string, Discussion> {
  return new LRUCache({ max: 2_000, ttl: DISCUSSION_TTL_MS });
}

/** Messages of a channel looked through for its latest thread (one page of conversations.history). */
const HISTORY_PAGE = 50;

/** Registers the agent-view intake handler. */
export function registerHandlers(intake: Pick<Intake, 'on'>, deps: AgentViewDeps): void {
  intake.on<PromptsIntake>(INTAKE.prompts, (p) => setPrompts(deps, p));
}

/**
 * Sets the Messages tab's suggestions (assistant.threads.setSuggestedPrompts, without thread_ts
 * for an agent_view app): the standing ones, led by "Document the latest discussion in #channel"
 * when the person looks at a channel they are in, that they may start jobs about, and whose
 * latest thread the bot can read. @throws transient Slack errors (the intake retries).
 */
export async function setPrompts(deps: AgentViewDeps, p: PromptsIntake): Promise<void> {
  const offer = p.viewing ? await channelOffer(deps, p.user, p.viewing, p.teamId) : undefined;
  await deps.agent.suggestPrompts(p.channel, promptsFor(offer, deps.askEnabled), PROMPTS_TITLE);
  deps.logger.info(
    { channel: p.channel, viewing: p.viewing, offered: offer !== undefined },
    'set the Messages tab suggestions',
  );
}

/** The channel's offer, or undefined when it may not be made (and why, in a debug line). */
async function channelOffer(
  deps: AgentViewDeps,
  user: string,
  channel: string,
  teamId: string,
): Promise<SuggestedPrompt | undefined> {
  const decision = await deps.access.authorize({ user, teamId }, 'start_job', channel, { audit: false });
  if (!decision.allowed) return skip(deps, channel, 'not allowed here');
  try {
    // Membership Slack can't tell now (MembersUnknownError) is no offer either.
    if (!(await deps.conversations.isMember(channel, user))) return skip(deps, channel, 'the person is not a member');
    const cached = deps.discussions?.get(channel);
    const found = cached ?? (await latestDiscussion(deps.slack, channel));
    if (!cached) deps.discussions?.set(channel, found);
    if ('none' in found) return skip(deps, channel, 'no discussion in its recent messages it can offer');
    return latestDiscussionPrompt(found.name, found.permalink);
  } catch (err) {
    if (hasCode<MembersUnknownError>(err, PlatformErrorCode.MembersUnknown)) {
      return skip(
        deps,
        channel,
        err.reason === 'too_large' ? 'in too many conversations to tell' : 'membership cannot be read just now',
      );
    }
    const rateLimited = (err as { code?: unknown }).code === ErrorCode.RateLimitedError;
    if (classifySlackError(err).kind === 'transient' && !rateLimited) throw err;
    // The bot cannot read it (not a member, private, gone), or Slack asks it to slow down: nothing to
    // offer there for a while, and no read again on the next flip.
    deps.discussions?.set(channel, { none: true }, { ttl: rateLimited ? RATE_LIMITED_TTL_MS : DISCUSSION_TTL_MS });
    return skip(deps, channel, `Slack said ${slackErrorCode(err) ?? 'no'}`);
  }
}

function skip(deps: AgentViewDeps, channel: string, why: string): undefined {
  deps.logger.debug({ channel, why }, 'no latest-discussion offer for this channel');
  return undefined;
}

/** The channel's name and the permalink of its newest thread, or `none`. @throws Slack errors. */
async function latestDiscussion(slack: AgentViewSlack, channel: string): Promise<Discussion> {
  const root = await latestThreadRoot(slack, channel);
  if (!root) return { none: true };
  const [info, link] = await Promise.all([
    slack.conversations.info({ channel }),
    slack.chat.getPermalink({ channel, message_ts: root }),
  ]);
  const name = info.channel?.name;
  return name && link.permalink ? { name, permalink: link.permalink } : { none: true };
}

/** The ts of the newest thread root among the channel's last {@link HISTORY_PAGE} messages (one that has replies). */
async function latestThreadRoot(slack: AgentViewSlack, channel: string): Promise<string | undefined> {
  const res = await slack.conversations.history({ channel, limit: HISTORY_PAGE });
  const root = (res.messages ?? []).find(
    (m) => (m.reply_count ?? 0) > 0 && typeof m.ts === 'string' && (m.thread_ts === undefined || m.thread_ts === m.ts),
  );
  return root?.ts;
}
