import type { KnownBlock } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import type { Intake, IntakeContext } from '../../platform/intake.js';
import type { Logger } from '../../platform/logger.js';
import { markupToText } from '../../platform/slack/markup.js';
import type { Steps } from '../../platform/steps.js';
import type { UserNames } from '../../platform/slack/user-names.js';
import { handleChange, handleFeedback, type ActionDeps } from './actions.js';
import { INTAKE, type ClickIntake, type QuestionIntake } from './intake.js';
import { askQuestion, type AskDeps } from './service.js';
import { tellPrivately } from '../../platform/slack/tell.js';
import { postToResponseUrl } from '../../platform/slack/respond.js';
import { handleAskExperts, type ExpertsDeps } from './experts.js';

/** What the ask handlers need. */
export interface AskHandlerDeps {
  ask: AskDeps;
  actions: ActionDeps;
  /** Ephemeral answers where there is no response_url. */
  slack: { chat: Pick<WebClient['chat'], 'postEphemeral'> };
  /** People's names for mentions in a question (users.info, cached). */
  names: Pick<UserNames, 'lookup'>;
  /** Ask the docs team (`./experts.ts`). */
  experts: ExpertsDeps;
  logger: Logger;
}

/** A person's message routed to the ask feature (the conversations feature decides; see its docs). */
export interface AskMessage {
  teamId: string;
  channel: string;
  user: string;
  /** As Slack sent it (markup), at most AGENT_PROMPT_MAX_CHARS; `textChars` its length when cut. */
  text: string;
  textChars?: number;
  ts: string;
  thread_ts?: string;
}

/**
 * A question in a message (a mention or DM taken as a question, or a reply in an answer's thread):
 * answered in the message's thread (its own ts when top level); the bot's mention is removed and
 * other markup turned into text, once the person is admitted (access and budget before any Slack
 * read). Only the question leaves Slack (and, in an answer's thread, the
 * assistant's own conversation): never the thread's other messages. A message from a question
 * channel (`opts.from`) is told a spent budget once per person per hour (see `askQuestion`).
 * @throws as {@link askQuestion}.
 */
export async function handleQuestionMessage(
  deps: AskHandlerDeps,
  msg: AskMessage,
  botUserId: string | undefined,
  steps: Steps,
  receipt: { key: string; receivedAt: number },
  opts: { from?: 'question-channel' } = {},
): Promise<void> {
  const threadTs = msg.thread_ts ?? msg.ts;
  const to = { user: msg.user, channel: msg.channel, threadTs };
  const tell = (text: string) => tellPrivately(deps, to, text);
  const req = {
    teamId: msg.teamId,
    channel: msg.channel,
    user: msg.user,
    // Mentions become names (users.info) only once the person may ask and has budget left.
    question: () => markupToText(msg.text, botUserId, deps.names.lookup(msg.teamId)),
    ...(msg.textChars !== undefined ? { textChars: msg.textChars } : {}),
    threadTs,
    // The asker's own top-level message (or DM) is claimed for their replies; someone else's thread never is.
    ...(msg.thread_ts === undefined ? { claim: 'asker' as const } : {}),
    key: receipt.key,
    receivedAt: receipt.receivedAt,
    ...(opts.from ? { from: opts.from } : {}),
  };
  await askQuestion(deps.ask, req, steps, { to, tell });
}

/** `/docs-ask`: the question is posted in the channel and answered in its thread. */
async function docsAsk(deps: AskHandlerDeps, p: QuestionIntake, ctx: IntakeContext): Promise<void> {
  const to = { user: p.user, channel: p.channel, responseUrl: p.responseUrl };
  const tell = (text: string) => tellPrivately(deps, to, text);
  const req = {
    teamId: p.teamId,
    channel: p.channel,
    user: p.user,
    question: () => markupToText(p.raw, undefined, deps.names.lookup(p.teamId)),
    ...(p.textChars !== undefined ? { textChars: p.textChars } : {}),
    key: ctx.jobId,
    receivedAt: ctx.receivedAt,
  };
  await askQuestion(deps.ask, req, ctx, { to, tell });
}

/**
 * A private answer with a button (the thanks for a 👎 with Ask the docs team), through the click's
 * `response_url`; `text` is its fallback. Never throws (a failure is one warning).
 */
async function tellWithBlocks(deps: AskHandlerDeps, responseUrl: string, text: string, blocks: KnownBlock[]) {
  await postToResponseUrl(responseUrl, { response_type: 'ephemeral', replace_original: false, text, blocks }).catch(
    (err: unknown) => deps.logger.warn({ err }, 'could not answer the person privately'),
  );
}

/** Registers the ask intake handlers (run by the intake worker of any replica). */
export function registerHandlers(intake: Pick<Intake, 'on'>, deps: AskHandlerDeps): void {
  const clickTell = (p: ClickIntake) => (text: string, blocks?: KnownBlock[]) => {
    const to = { user: p.user, channel: p.channel ?? '', ...(p.responseUrl ? { responseUrl: p.responseUrl } : {}) };
    return blocks && p.responseUrl ? tellWithBlocks(deps, p.responseUrl, text, blocks) : tellPrivately(deps, to, text);
  };
  intake.on<QuestionIntake>(INTAKE.question, (p, ctx) => docsAsk(deps, p, ctx));
  intake.on<ClickIntake>(INTAKE.feedback, (p, ctx) => handleFeedback(deps.actions, p, ctx, clickTell(p)));
  intake.on<ClickIntake>(INTAKE.change, (p, ctx) => handleChange(deps.actions, p, ctx, clickTell(p)));
  intake.on<ClickIntake>(INTAKE.experts, (p, ctx) => handleAskExperts(deps.experts, p, ctx, clickTell(p)));
}
