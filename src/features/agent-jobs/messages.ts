import type { WebClient } from '@slack/web-api';
import { promptTooLongText } from '../../platform/access.js';
import type { KeyedSerial } from '../../platform/keyed-serial.js';
import type { Logger } from '../../platform/logger.js';
import { markupToText, mentionsUser } from '../../platform/slack/markup.js';
import { tellPrivately } from '../../platform/slack/tell.js';
import { postOnce, type PostOnceClient, stepKeys, type Steps } from '../../platform/steps.js';
import type { UserNames } from '../../platform/slack/user-names.js';
import { continueAgentJob, type ContinueJobDeps } from './follow-up/index.js';
import {
  projectsNow,
  startWithContext,
  takeProjectOption,
  type PromptContext,
  type StartJobDeps,
} from './start/index.js';
import { PENDING_THREAD, type JobStore } from './store.js';

/** What handling people's messages needs. */
export interface MessageDeps {
  store: Pick<JobStore, 'findByThread'>;
  /** Serialises follow-ups per job in this process, in arrival order. */
  followups: Pick<KeyedSerial, 'run'>;
  start: StartJobDeps;
  /** Reads the thread a mention was made in (and message links) into the prompt; absent: the instruction alone. */
  context?: PromptContext;
  continue: ContinueJobDeps;
  /** Ephemeral answers and help (posted once). */
  slack: PostOnceClient & { chat: Pick<WebClient['chat'], 'postEphemeral'> };
  /** People's names for mentions in the text (users.info, cached, on a client of their own). */
  names: Pick<UserNames, 'lookup'>;
  logger: Logger;
  now: () => number;
  /** FOLLOWUP_IGNORE_PREFIX: thread replies starting with it are not sent to the agent. */
  ignorePrefix: string;
}

/** A person's message as the bot sees it, from a `message` or an `app_mention` event. */
export interface IncomingMessage {
  teamId: string;
  channel: string;
  /** `channel`, `group`, `im` or `mpim` (message events); undefined for app_mention. */
  channelType?: string;
  user: string;
  /** At most AGENT_PROMPT_MAX_CHARS (the listener cuts a longer one; see `textChars`). */
  text: string;
  /** The text's length as typed, when the listener cut it (the prompt is then refused as too long). */
  textChars?: number;
  ts: string;
  thread_ts?: string;
  /** True for an `app_mention` event. */
  viaMention: boolean;
}

/** What the bot does with a message. */
export type MessageDecision =
  | { action: 'ignore'; reason: string }
  | { action: 'followup'; jobId: string }
  | { action: 'starting' }
  | { action: 'start'; threadTs: string }
  | { action: 'help'; threadTs: string };

/** Help posted in the thread when someone mentions the bot without an instruction. */
export const MENTION_HELP =
  "Hi! Tell me what to change in the docs, for example `@Docs Agent add a quickstart for the Python SDK`, and I'll start an agent job and post its pull request here. In a job's thread, just reply to continue it.";

/**
 * Decides what a message means (pure apart from the thread lookup in Redis):
 * - in a job's thread (root = status message or the message that started it): a follow-up,
 *   unless it starts with FOLLOWUP_IGNORE_PREFIX (`!aside`); while the job is still being
 *   created, "starting" (the person is asked to send it again);
 * - an @mention outside a job thread, or a top-level DM: a new job in that message's thread
 *   (help when there is no instruction);
 * - anything else (other threads, plain channel chatter): ignored.
 */
export async function decide(
  deps: Pick<MessageDeps, 'store' | 'ignorePrefix'>,
  msg: IncomingMessage,
  botUserId: string | undefined,
): Promise<MessageDecision> {
  const ignorePrefix = deps.ignorePrefix;
  if (msg.thread_ts) {
    const jobId = await deps.store.findByThread(msg.channel, msg.thread_ts);
    if (jobId) {
      if (ignorePrefix && msg.text.trimStart().startsWith(ignorePrefix)) return { action: 'ignore', reason: 'aside' };
      if (jobId === PENDING_THREAD) return { action: 'starting' };
      return { action: 'followup', jobId };
    }
  }
  const mentioned = msg.viaMention || mentionsUser(msg.text, botUserId);
  const isDm = msg.channelType === 'im';
  if (!mentioned && !(isDm && !msg.thread_ts)) return { action: 'ignore', reason: 'not for the bot' };
  if (isDm && msg.thread_ts && !mentioned) return { action: 'ignore', reason: 'DM thread that is not a job' };
  const threadTs = msg.thread_ts ?? msg.ts;
  const instruction = msg.text.replace(/<@[A-Z0-9]+(\|[^>]*)?>/g, (m) => (mentionsUser(m, botUserId) ? '' : m)).trim();
  if (!instruction) return { action: 'help', threadTs };
  return { action: 'start', threadTs };
}

/** Thrown while the job whose thread a reply is in is still being created: the intake retries it shortly. */
export class JobStillStartingError extends Error {
  constructor() {
    super('the job of this thread is still starting');
    this.name = 'JobStillStartingError';
  }
}

/** Answer to a reply in the thread of a job that took too long to start. */
export const STILL_STARTING_TEXT =
  'This job is still starting, so I could not pass that on yet. Send it again in a few seconds.';

/** The intake's facts about the message: its id (keys what is posted at most once) and when it was recorded (epoch ms). */
export interface MessageReceipt {
  key: string;
  receivedAt: number;
}

/**
 * Acts on a person's message (recorded by the intake; `steps` carries what earlier tries did):
 * starts a job in the message's thread, continues the job whose thread it is in, or posts help.
 * A reply while its job is still being created waits for it (the intake retries) and is told
 * to send it again only if the job is not there by the last try. Follow-ups to one job run in
 * arrival order in this process. Failures are told to the person ephemerally in the thread.
 * Who may start or continue a job, and for a start the agent budget, are asked before the text is
 * converted (mentions → names) or any thread is read.
 *
 * @returns whether a job was started (the start went through).
 * @throws {JobStillStartingError} to be retried; Redis errors.
 */
export async function handleIncomingMessage(
  deps: MessageDeps,
  msg: IncomingMessage,
  botUserId: string | undefined,
  steps: Steps,
  receipt: MessageReceipt,
): Promise<{ started: boolean }> {
  const decision = await decide(deps, msg, botUserId);
  const log = deps.logger.child({ channel: msg.channel, ts: msg.ts, action: decision.action });
  const to = { user: msg.user, channel: msg.channel, threadTs: msg.thread_ts ?? msg.ts };
  const tellAuthor = (text: string) =>
    tellPrivately({ slack: deps.slack, logger: log }, to, text, { failure: 'could not post an ephemeral answer' });
  const none = { started: false };
  switch (decision.action) {
    case 'ignore':
      log.debug({ reason: decision.reason }, 'message ignored');
      return none;
    case 'starting':
      if (!steps.finalAttempt) throw new JobStillStartingError();
      await tellAuthor(STILL_STARTING_TEXT);
      return none;
    case 'help':
      await postOnce(deps.slack, steps, {
        channel: msg.channel,
        thread_ts: decision.threadTs,
        text: MENTION_HELP,
        key: stepKeys(receipt.key, 'help').help,
        since: receipt.receivedAt,
      });
      return none;
    case 'followup':
      await followUp(deps, { msg, botUserId, jobId: decision.jobId }, steps, tellAuthor);
      return none;
    case 'start':
      return startFromMessage(deps, { msg, botUserId, threadTs: decision.threadTs }, { steps, receipt }, tellAuthor);
  }
}

/** A reply in a job's thread: sent to the job (in arrival order), unless it is over the prompt limit. */
async function followUp(
  deps: MessageDeps,
  m: { msg: IncomingMessage; botUserId: string | undefined; jobId: string },
  steps: Steps,
  tell: (text: string) => Promise<unknown>,
): Promise<void> {
  const { msg, botUserId, jobId } = m;
  if (msg.textChars !== undefined) return void (await tell(promptTooLongText(msg.textChars, msg.text.length)));
  await deps.followups.run(jobId, async () => {
    const prompt = () => markupToText(msg.text, botUserId, deps.names.lookup(msg.teamId));
    const res = await continueAgentJob(deps.continue, { jobId, author: msg.user, prompt }, steps);
    if (!res.ok) await tell(res.message);
  });
}

/**
 * A mention or DM that starts a job in `threadTs`: admitted first ({@link admitStart}), then its
 * text converted and, in a thread that is not one of the bot's jobs, the discussion above it read
 * as context. @returns whether the job started.
 */
async function startFromMessage(
  deps: MessageDeps,
  m: { msg: IncomingMessage; botUserId: string | undefined; threadTs: string },
  at: { steps: Steps; receipt: MessageReceipt },
  tell: (text: string) => Promise<unknown>,
): Promise<{ started: boolean }> {
  const { msg, botUserId } = m;
  if (!(await admitStart(deps, msg, botUserId, at.steps, tell))) return { started: false };
  const instruction = await markupToText(msg.text, botUserId, deps.names.lookup(msg.teamId));
  // In a thread (not one of the bot's jobs), the discussion above the mention goes along as context.
  const thread = msg.thread_ts ? { thread: { ts: msg.thread_ts, excludeTs: msg.ts } } : {};
  const req = {
    teamId: msg.teamId,
    channel: msg.channel,
    requester: msg.user,
    instruction,
    threadTs: m.threadTs,
    requestKey: at.receipt.key,
    receivedAt: at.receipt.receivedAt,
    ...thread,
  };
  const res = await startWithContext(deps, req, at.steps, async (text) => void (await tell(text)));
  return { started: res?.ok === true };
}

/**
 * Whether the author may start a job here, asked before the message's text is converted or any
 * thread read (a refused person costs no users.info, no conversations.replies): the access policy;
 * an instruction over the prompt limit; then one request from the agent budget, taken for the
 * message's `project=` (or the channel's project) and saved as `admitted`, so the start takes no
 * other. An instruction whose `project=` is unknown, or that holds only the option, is left to the
 * start's own answer (it takes no budget). A refusal is told once (saved in `steps`).
 */
async function admitStart(
  deps: MessageDeps,
  msg: IncomingMessage,
  botUserId: string | undefined,
  steps: Steps,
  tell: (text: string) => Promise<unknown>,
): Promise<boolean> {
  if (steps.progress.startRefused) return false;
  if (steps.progress.admitted) return true;
  const refuse = async (text: string) => {
    await steps.save({ startRefused: true });
    await tell(text);
    return false;
  };
  const actor = { user: msg.user, teamId: msg.teamId };
  const decision = await deps.start.access.authorize(actor, 'start_job', msg.channel);
  if (!decision.allowed) return refuse(decision.text);
  if (msg.textChars !== undefined) return refuse(promptTooLongText(msg.textChars, msg.text.length));
  const bare = msg.text.replace(/<@[A-Z0-9]+(\|[^>]*)?>/g, (t) => (mentionsUser(t, botUserId) ? '' : t)).trim();
  const projects = projectsNow(deps.start);
  const opt = projects ? takeProjectOption(bare, projects) : { ok: true as const, instruction: bare };
  if (!opt.ok || !opt.instruction) return true;
  const project = opt.project ?? (await deps.start.projectFor(msg.channel));
  const call = { actor, channel: msg.channel, action: 'start_job' as const, project, promptChars: bare.length };
  const admitted = await deps.start.access.admitAgentCall(call);
  if (!admitted.allowed) return refuse(admitted.text);
  await steps.save({ admitted: true, projectId: project });
  return true;
}
