import type { WebClient } from '@slack/web-api';
import { promptTooLongText } from '../../platform/access.js';
import type { KeyedSerial } from '../../platform/keyed-serial.js';
import type { Logger } from '../../platform/logger.js';
import { markupToText, mentionsUser } from '../../platform/slack/markup.js';
import { postOnce, type PostOnceClient, type Steps } from '../../platform/slack/post-once.js';
import type { UserNames } from '../../platform/slack/user-names.js';
import { continueAgentJob, type ContinueJobDeps } from './follow-up/index.js';
import { startWithContext, type PromptContext } from './start/index.js';
import type { StartJobDeps } from './start/index.js';
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
 * Who may start or continue a job is asked before the text is converted (mentions → names).
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
  const { key, receivedAt } = receipt;
  const client = deps.slack;
  const decision = await decide(deps, msg, botUserId);
  const log = deps.logger.child({ channel: msg.channel, ts: msg.ts, action: decision.action });
  const tellAuthor = (text: string) =>
    client.chat
      .postEphemeral({ channel: msg.channel, user: msg.user, thread_ts: msg.thread_ts ?? msg.ts, text })
      .catch((err: unknown) => log.warn({ err }, 'could not post an ephemeral answer'));
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
      await postOnce(client, steps, {
        channel: msg.channel,
        thread_ts: decision.threadTs,
        text: MENTION_HELP,
        key: `${key}:help`,
        since: receivedAt,
      });
      return none;
    case 'followup':
      if (msg.textChars !== undefined) {
        await tellAuthor(promptTooLongText(msg.textChars, msg.text.length));
        return none;
      }
      await deps.followups.run(decision.jobId, async () => {
        const prompt = () => markupToText(msg.text, botUserId, deps.names.lookup(msg.teamId));
        const res = await continueAgentJob(deps.continue, { jobId: decision.jobId, author: msg.user, prompt }, steps);
        if (!res.ok) await tellAuthor(res.message);
      });
      return none;
    case 'start': {
      if (!(await mayStart(deps, msg, steps, tellAuthor))) return none;
      if (msg.textChars !== undefined) {
        await tellAuthor(promptTooLongText(msg.textChars, msg.text.length));
        return none;
      }
      const instruction = await markupToText(msg.text, botUserId, deps.names.lookup(msg.teamId));
      // In a thread (not one of the bot's jobs), the discussion above the mention goes along as context.
      const thread = msg.thread_ts ? { thread: { ts: msg.thread_ts, excludeTs: msg.ts } } : {};
      const req = {
        teamId: msg.teamId,
        channel: msg.channel,
        requester: msg.user,
        instruction,
        threadTs: decision.threadTs,
        requestKey: key,
        receivedAt,
        ...thread,
      };
      const res = await startWithContext(deps, req, steps, async (text) => void (await tellAuthor(text)));
      return { started: res?.ok === true };
    }
  }
}

/**
 * Whether the author may start a job here (the access policy, no budget spent), asked before the
 * message's text is converted; a refusal is told once (saved in `steps`).
 */
async function mayStart(
  deps: MessageDeps,
  msg: IncomingMessage,
  steps: Steps,
  tell: (text: string) => Promise<unknown>,
): Promise<boolean> {
  if (steps.progress.startRefused) return false;
  const decision = await deps.start.access.authorize({ user: msg.user, teamId: msg.teamId }, 'start_job', msg.channel);
  if (decision.allowed) return true;
  await steps.save({ startRefused: true });
  await tell(decision.text);
  return false;
}
