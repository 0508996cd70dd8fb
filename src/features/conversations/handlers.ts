import type { WebClient } from '@slack/web-api';
import type { Intake, IntakeContext } from '../../platform/intake.js';
import type { Logger } from '../../platform/logger.js';
import { mentionsUser } from '../../platform/slack/markup.js';
import { tellPrivately } from '../../platform/slack/tell.js';
import type { AgentJobs, IncomingMessage, ThreadOwner } from '../agent-jobs/index.js';
import {
  ASK_INSTEAD_TEXT,
  classifyMention,
  EDIT_CHANNEL_ASK_TEXT,
  QUESTION_CHANNEL_HINT_TEXT,
  readsAsChangeRequest,
  type Ask,
} from '../ask/index.js';
import { INTAKE, type MessageIntake } from './intake.js';

/** Per channel, what a mention or DM is: decided by the mention rule (`auto`), or always a question or a change. */
export type MentionsMode = 'auto' | 'ask' | 'edit';

/** What routing people's messages needs: the two features it routes to, and who owns which thread. */
export interface RouterDeps {
  jobs: Pick<AgentJobs, 'handleMessage'>;
  /** Agent-jobs' thread index (a job's thread, or one still starting). @throws the Redis error. */
  jobThreads: (channel: string, threadTs: string) => Promise<ThreadOwner>;
  ask: Pick<
    Ask,
    'configured' | 'takesReplyFrom' | 'answerReplyFrom' | 'handleMessage' | 'handleAnswerReply' | 'markTold'
  >;
  /** The channel's `/docs-settings mentions` mode (default `auto`). @throws the Redis error. */
  mentionsModeFor: (channel: string) => Promise<MentionsMode>;
  /**
   * Whether a DM's text is one of the bot's own suggestions in the Messages tab (agent-view's
   * `suggestionKind`): it is taken at its word, whatever the mode, and with no line on how to ask
   * instead. Absent: none are.
   */
  suggestionKind?: (text: string) => 'job' | 'question' | undefined;
  /** FOLLOWUP_IGNORE_PREFIX: replies starting with it are for the people in the thread, not the bot. */
  ignorePrefix: string;
  slack: { chat: Pick<WebClient['chat'], 'postEphemeral'> };
  logger: Logger;
}

/**
 * Where a message goes:
 * - `jobs`: agent-jobs decides (a job's thread, help for an empty mention, anything not for the bot,
 *   and every mention while asking is off: what the bot did before it could answer questions);
 * - `change`: a mention or DM taken as a docs change (agent-jobs starts a job; the person is told how to ask instead);
 * - `ask`: a mention or DM taken as a question, or a reply in an answer's thread that takes replies
 *   from its author (the ask feature);
 * - `answer`: a reply, by someone other than the asker, in a question's thread whose docs team was
 *   asked (the ask feature offers Document this answer, once per thread);
 * - `ignore`: such a reply that starts with FOLLOWUP_IGNORE_PREFIX.
 */
export type Route = 'jobs' | 'change' | 'ask' | 'answer' | 'ignore';

/**
 * Routes a message (pure apart from the thread lookups and the channel's mode in Redis), in order:
 * a reply in a job's thread → `jobs` (the job goes on); a reply by someone other than the asker in
 * a question's thread whose docs team was asked → `answer`; a reply in an answer's thread that takes
 * replies from its author (the bot's own thread: anyone's; the asker's top-level message: the
 * asker's) → `ask` (its conversation goes on; no mention needed), unless it starts with
 * FOLLOWUP_IGNORE_PREFIX; a message
 * that is neither a mention nor a top-level DM, or any while asking is off, or an empty mention →
 * `jobs`; else the channel's mentions mode: `ask` → `ask`, `edit` → `change`, `auto` → the mention
 * rule (`classifyMention`: a question → `ask`, else `change`).
 * @throws the Redis error of a lookup.
 */
export async function routeMessage(
  deps: Omit<RouterDeps, 'jobs' | 'slack' | 'logger'>,
  msg: IncomingMessage,
  botUserId: string | undefined,
): Promise<Route> {
  const route = await decideRoute(deps, msg, botUserId);
  return route === 'change-by-setting' ? 'change' : route;
}

/**
 * {@link routeMessage}, telling a change by the channel's `edit` setting (`change-by-setting`: no
 * phrasing makes a mention a question there) from a change by the mention rule.
 */
async function decideRoute(
  deps: Omit<RouterDeps, 'jobs' | 'slack' | 'logger'>,
  msg: IncomingMessage,
  botUserId: string | undefined,
): Promise<Route | 'change-by-setting'> {
  if (msg.thread_ts) {
    if (await deps.jobThreads(msg.channel, msg.thread_ts)) return 'jobs';
    const aside = deps.ignorePrefix && msg.text.trimStart().startsWith(deps.ignorePrefix);
    const mentioned = msg.viaMention || mentionsUser(msg.text, botUserId);
    if (!mentioned && (await deps.ask.answerReplyFrom(msg.channel, msg.thread_ts, msg.user))) {
      return aside ? 'ignore' : 'answer';
    }
    if (await deps.ask.takesReplyFrom(msg.channel, msg.thread_ts, msg.user)) return aside ? 'ignore' : 'ask';
  }
  const mentioned = msg.viaMention || mentionsUser(msg.text, botUserId);
  if (!mentioned && !(msg.channelType === 'im' && !msg.thread_ts)) return 'jobs';
  if (!deps.ask.configured) return 'jobs';
  const bare = msg.text.replace(/<@[A-Z0-9]+(\|[^>]*)?>/g, (m) => (mentionsUser(m, botUserId) ? '' : m)).trim();
  if (!bare) return 'jobs';
  const suggested = msg.channelType === 'im' && !msg.thread_ts ? deps.suggestionKind?.(bare) : undefined;
  if (suggested) return suggested === 'question' ? 'ask' : 'jobs';
  const mode = await deps.mentionsModeFor(msg.channel);
  if (mode === 'ask') return 'ask';
  if (mode === 'edit') return 'change-by-setting';
  return classifyMention(bare) === 'question' ? 'ask' : 'change';
}

/**
 * Handles a recorded message: routes it once (the route is saved, so a retry goes the same way
 * even if the channel's mode changed meanwhile) and hands it to agent-jobs or ask. A job started
 * from a message taken as a change is followed by one private line on how to ask instead: by
 * phrasing or `/docs-ask` ({@link ASK_INSTEAD_TEXT}), or, where the channel's mentions setting is
 * `edit`, only `/docs-ask` ({@link EDIT_CHANNEL_ASK_TEXT}). A route
 * that can't be told on the last try (Redis, or OAuth mode's `installation_missing`) is told to the
 * person ({@link ROUTE_FAILED_TEXT}).
 * @throws what the feature handling it throws (the intake retries); a routing failure before the last try.
 */
export async function handleMessage(deps: RouterDeps, p: MessageIntake, ctx: IntakeContext): Promise<void> {
  const saved = ctx.progress.route as Route | undefined;
  let decided: Route | 'change-by-setting';
  try {
    decided = saved
      ? ctx.progress.bySetting
        ? 'change-by-setting'
        : saved
      : await decideRoute(deps, p.msg, p.botUserId);
  } catch (err) {
    if (!ctx.finalAttempt) throw err;
    return routeFailed(deps, p.msg, err);
  }
  const bySetting = decided === 'change-by-setting';
  const route: Route = bySetting ? 'change' : (decided as Route);
  if (!saved) await ctx.save({ route, ...(bySetting ? { bySetting: true } : {}) });
  const receipt = { key: ctx.jobId, receivedAt: ctx.receivedAt };
  if (route === 'ignore') return deps.logger.debug({ channel: p.msg.channel }, 'aside in an answer thread ignored');
  if (route === 'ask') return deps.ask.handleMessage(p.msg, p.botUserId, ctx, receipt);
  if (route === 'answer') return deps.ask.handleAnswerReply(p.msg, p.botUserId, ctx);
  const { started } = await deps.jobs.handleMessage(p.msg, p.botUserId, ctx, receipt);
  if (route !== 'change' || !started || ctx.progress.askHintTold) return;
  await tellPrivately(deps, inThread(p.msg), bySetting ? EDIT_CHANNEL_ASK_TEXT : ASK_INSTEAD_TEXT, {
    failure: 'could not tell the person how to ask instead',
  });
  await ctx.save({ askHintTold: true });
}

/**
 * What the person is told (privately, in the message's thread) when the last try could not route
 * their message: the thread index or the channel's settings could not be read (Redis, or in OAuth
 * mode no installation for them: `installation_missing`).
 */
export const ROUTE_FAILED_TEXT =
  "I couldn't check this channel's settings, so I didn't do anything with your message. Try again in a moment.";

/** The last try could not route `msg`: one warn line (ids and the error's code, never the text) and {@link ROUTE_FAILED_TEXT}. */
async function routeFailed(deps: RouterDeps, msg: IncomingMessage, err: unknown): Promise<void> {
  deps.logger.warn({ err, channel: msg.channel, user: msg.user }, 'could not route a message; told the person');
  await tellPrivately(deps, inThread(msg), ROUTE_FAILED_TEXT, {
    failure: 'could not tell the person their message was not routed',
  });
}

/** The author of `msg`, told ephemerally in its thread (its own ts when top level). */
function inThread(msg: IncomingMessage): { user: string; channel: string; threadTs: string } {
  return { user: msg.user, channel: msg.channel, threadTs: msg.thread_ts ?? msg.ts };
}

/**
 * Handles a new message in a question channel (recorded by the question-channel rule): one that
 * reads as a docs change by the mention rule (`readsAsChangeRequest`: "please …", "can you add …",
 * "add …") gets one private line on how to change the docs (at most once per person per hour:
 * `Ask.markTold`), and no job; any other is asked
 * as a question (the ask feature: access, budgets, streaming, sources, follow-ups), answered in the
 * message's thread. Nothing happens while asking the docs is off.
 * @throws what the ask feature throws (the intake retries).
 */
export async function handleQuestionChannelMessage(
  deps: RouterDeps,
  p: MessageIntake,
  ctx: IntakeContext,
): Promise<void> {
  const msg = p.msg;
  if (!deps.ask.configured) return;
  if (!readsAsChangeRequest(msg.text)) {
    const receipt = { key: ctx.jobId, receivedAt: ctx.receivedAt };
    return deps.ask.handleMessage(msg, p.botUserId, ctx, receipt, { from: 'question-channel' });
  }
  if (ctx.progress.hintTold) return;
  // Once per person per hour, whatever they post. The note is made BEFORE the post: the hint is
  // best-effort, so a crash between the two loses that hour's hint, but no retry or second message
  // can post it twice. (A Redis error throws: the intake retries the recorded message.)
  const first = await deps.ask.markTold(msg.teamId, msg.user, 'question-channel-hint');
  if (first) {
    const to = { user: msg.user, channel: msg.channel, threadTs: msg.ts };
    await tellPrivately(deps, to, QUESTION_CHANNEL_HINT_TEXT, { failure: 'could not give the question channel hint' });
  }
  await ctx.save({ hintTold: true });
}

/** Registers the message handlers (the message kind keeps agent-jobs' name: see `./intake.ts`). */
export function registerHandlers(intake: Pick<Intake, 'on'>, deps: RouterDeps): void {
  intake.on<MessageIntake>(INTAKE.message, (p, ctx) => handleMessage(deps, p, ctx));
  intake.on<MessageIntake>(INTAKE.questionChannel, (p, ctx) => handleQuestionChannelMessage(deps, p, ctx));
}
