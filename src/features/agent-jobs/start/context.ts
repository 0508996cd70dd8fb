import type { AgentCall } from '../../../platform/access.js';
import type { Steps } from '../../../platform/steps.js';
import { takeProjectOption } from './project-option.js';
import { projectsNow } from './request.js';
import { startAgentJob, type StartJobDeps, type StartJobRequest, type StartJobResult } from './start.js';
import { withQuoted } from '../../../platform/prompt-fence.js';
import type { ContextRequest } from '../../thread-context/index.js';

/** What a {@link PromptContext} answers: the prompt (and a line for the person), or why nothing may start. */
type PromptContextResult =
  | { ok: true; prompt: string; notice?: string; sources?: string[]; stats?: { messages: number } }
  | { ok: false; message: string };

/**
 * Builds the docs agent's prompt from an instruction and its Slack context. Provided by the
 * thread-context feature (the composition root wires it in); without one, the prompt is the
 * instruction. @throws transient errors (the intake retries).
 */
export type PromptContext = (req: ContextRequest) => Promise<PromptContextResult>;

/** What {@link startWithContext} needs. */
export interface ContextStartDeps {
  start: StartJobDeps;
  context?: PromptContext;
}

/**
 * A start request with the thread its context comes from, and the text the bot quotes for the agent
 * (`quoted`: see thread-context's `ContextRequest`). Only `instruction` (what the person typed) acts.
 */
type ContextStartRequest = StartJobRequest & Pick<ContextRequest, 'thread' | 'quoted'>;

interface ContextProgress {
  prompt?: string;
  promptRefused?: boolean;
  linkNotice?: string;
  linkNoticeSent?: boolean;
  /** The conversations whose messages are in `prompt`. */
  sources?: string[];
  /** How many Slack messages are in `prompt`. */
  messages?: number;
}

/** Sentence when Slack would not let the bot read the context, even after retries. */
export const CONTEXT_FAILED_TEXT =
  "Slack wouldn't let me read the conversation just now, so nothing was started. Try again in a moment.";

/**
 * The one door every new job goes through (`/docs-edit`, @mentions, DMs, "Improve with agent",
 * "Document this", "Document this thread"). `project=<id>` and message links are read from the
 * `instruction` (what the person typed) only; `quoted` (text the bot quotes) follows it in the
 * prompt and acts on nothing. Asks access and takes the agent budget, then builds the prompt with its
 * Slack context (once: it is saved in `steps`, so a retry sends the same prompt; a refused person
 * costs no Slack read), tells the person about links that were not expanded and about
 * private text that may reach the pull request (once), then starts the job with
 * {@link startAgentJob}, recording which conversations its context came from (`contextFrom`). When the request's own thread can't be read,
 * nothing starts and the person is told how to fix it.
 *
 * @param tell - answers the person privately; never throws.
 * @returns the start's result, or undefined when nothing was started for want of context.
 * @throws as {@link startAgentJob}; transient context errors before the last try.
 */
export async function startWithContext(
  deps: ContextStartDeps,
  request: ContextStartRequest,
  steps: Steps,
  tell: (text: string) => Promise<void>,
): Promise<StartJobResult | undefined> {
  const p = steps.progress as ContextProgress;
  if (p.promptRefused) return undefined;
  const req = await withProjectOption(deps, request, tell);
  if (!req) {
    await steps.save({ promptRefused: true });
    return undefined;
  }
  // The thread the job will live in: Slack shows what the bot is doing there while it starts.
  const at = req.threadTs ? { channel: req.channel, threadTs: req.threadTs } : undefined;
  if (deps.context && p.prompt === undefined) {
    const prompt = await readContext(deps, deps.context, req, steps, tell);
    if (!prompt) return undefined;
  }
  if (p.linkNotice && !p.linkNoticeSent) {
    await tell(p.linkNotice);
    await steps.save({ linkNoticeSent: true });
  }
  const { thread: _thread, quoted, ...start } = req;
  if (!deps.context && quoted && p.prompt === undefined)
    await steps.save({ prompt: withQuoted(req.instruction, quoted) });
  const context =
    p.prompt && p.prompt !== req.instruction
      ? {
          prompt: p.prompt,
          ...(p.sources?.length ? { contextFrom: p.sources } : {}),
          ...(p.messages ? { contextMessages: p.messages } : {}),
        }
      : {};
  if (at) await deps.start.agent?.loading(at, 'is starting the job…');
  try {
    const res = await startAgentJob(deps.start, { ...start, ...context }, steps);
    if (!res.ok && res.message) await tell(res.message);
    return res;
  } finally {
    // Slack clears the loading line when the bot posts in the thread; a start refused before it posted must clear it.
    if (at) await deps.start.agent?.loading(at, '');
  }
}

/**
 * Builds and saves the prompt with its Slack context, after the access policy and the agent budget
 * (one request taken here and saved as `admitted`, so the start does not take another): a person
 * refused costs no Slack read at all. When nothing can start (refused, the thread unreadable, Slack
 * failing on the last try) the person is told, the request given back to the budget, and undefined
 * returned. @throws transient context errors before the last try; Redis errors.
 */
async function readContext(
  deps: ContextStartDeps,
  context: PromptContext,
  req: ContextStartRequest,
  steps: Steps,
  tell: (text: string) => Promise<void>,
): Promise<string | undefined> {
  const p = steps.progress as ContextProgress & { admitted?: boolean; projectId?: string };
  const projectId = p.projectId ?? req.project ?? (await deps.start.projectFor(req.channel));
  const call: AgentCall = {
    actor: { user: req.requester, teamId: req.teamId },
    channel: req.channel,
    action: 'start_job',
    project: projectId,
    promptChars: withQuoted(req.instruction, req.quoted).length,
  };
  if (!p.admitted) {
    const decision = await deps.start.access.admitAgentCall(call);
    if (!decision.allowed) {
      await steps.save({ promptRefused: true });
      await tell(decision.text);
      return undefined;
    }
    await steps.save({ admitted: true, projectId });
  }
  const nothing = async (text: string): Promise<undefined> => {
    await steps.save({ promptRefused: true });
    await deps.start.access.refund(call);
    await tell(text);
    return undefined;
  };
  const at = req.threadTs ? { channel: req.channel, threadTs: req.threadTs } : undefined;
  if (at && (req.thread || SLACK_LINK.test(req.instruction)))
    await deps.start.agent?.loading(at, 'is reading the thread…');
  let built: PromptContextResult;
  try {
    built = await context({
      teamId: req.teamId,
      channel: req.channel,
      requester: req.requester,
      instruction: req.instruction,
      ...(req.thread ? { thread: req.thread } : {}),
      ...(req.quoted ? { quoted: req.quoted } : {}),
    });
  } catch (err) {
    if (!steps.finalAttempt) throw err;
    deps.start.logger.warn({ err, channel: req.channel }, 'could not read the context of a request');
    return nothing(CONTEXT_FAILED_TEXT);
  }
  if (!built.ok) return nothing(built.message);
  await steps.save({
    prompt: built.prompt,
    ...(built.notice ? { linkNotice: built.notice } : {}),
    ...(built.sources?.length ? { sources: built.sources } : {}),
    ...(built.stats?.messages ? { messages: built.stats.messages } : {}),
  });
  return built.prompt;
}

/** A Slack message permalink in an instruction (its thread will be read). */
const SLACK_LINK = /slack\.com\/archives\//;

/** Answer to an instruction that was only `project=<id>`. */
export const PROJECT_ONLY_TEXT =
  'Tell me what to change in the docs as well as the project, for example `project=<id> Add a quickstart for the Python SDK`. Nothing was started.';

/**
 * Takes `project=<id>` out of the instruction (see {@link takeProjectOption}). An unknown id is
 * answered privately with the allowed ones (after the access check, so a person who may not start
 * jobs here hears that instead), with a warning log and no docs API call.
 * @returns the request for that project, or undefined when nothing may start (the person was told).
 */
async function withProjectOption(
  deps: ContextStartDeps,
  req: ContextStartRequest,
  tell: (text: string) => Promise<void>,
): Promise<ContextStartRequest | undefined> {
  const projects = projectsNow(deps.start);
  if (!projects) return req;
  const opt = takeProjectOption(req.instruction, projects);
  if (opt.ok && opt.instruction)
    return { ...req, instruction: opt.instruction, ...(opt.project ? { project: opt.project } : {}) };
  const decision = await deps.start.access.authorize(
    { user: req.requester, teamId: req.teamId },
    'start_job',
    req.channel,
  );
  if (!decision.allowed) return void (await tell(decision.text));
  deps.start.logger.warn(
    { channel: req.channel, requester: req.requester },
    opt.ok
      ? 'an instruction held only project='
      : 'an instruction named a docs project that is not configured; nothing started',
  );
  await tell(opt.ok ? PROJECT_ONLY_TEXT : opt.message);
  return undefined;
}
