/**
 * What the agent-jobs listeners record before they ack: the intake kinds, each with its payload's
 * schema and version (docs/architecture.md, "Adding a feature"); the handlers take them from the
 * intake, typed from these schemas, and the worker checks every payload against them first.
 */
import { z } from 'zod';
import { intakeKind } from '../../platform/intake.js';
import { clickSchema } from '../../platform/slack/click.js';
import type { FeedbackIntake } from './feedback.js';
import type { PreviewFixIntake } from './preview/fix.js';
import type { StartJobRequest } from './start/index.js';

/** Where to tell the person privately: a command's or click's `response_url`, else an ephemeral in the channel. */
export interface Reply {
  responseUrl?: string;
  /** For `chat.postEphemeral` when there is no response_url. */
  ephemeralThreadTs?: string;
}

/**
 * A request to start a job (`/docs-edit`, "Improve with agent", "Document this", "Document this
 * thread"); `thread` names the thread (in `channel`) whose messages go to the agent as context;
 * `quoted` is text the bot quotes for the agent, already fenced, kept apart from the `instruction`
 * the person typed so that nothing in it acts (no `project=`, no message link is read).
 */
export type StartIntake = Omit<StartJobRequest, 'requestKey' | 'receivedAt' | 'prompt'> &
  Reply & { thread?: { ts: string }; quoted?: string };
/** `/docs-reply <job-id> <instruction>`, or the follow-up form of "Document this thread" on a job's thread. */
export interface ReplyIntake extends Reply {
  /** The workspace of the request (names are looked up per team); absent in intakes recorded before it was added. */
  teamId?: string;
  jobId: string;
  /** The instruction as typed (Slack markup; plain text when `via` is `form`). */
  raw: string;
  user: string;
  channel: string;
  botUserId?: string | undefined;
  /** `form`: from a modal's plain_text_input (no markup to convert). Default: the command. */
  via?: 'command' | 'form';
}
/** App Home opened. */
export interface HomeIntake {
  teamId: string;
  user: string;
}
/** "Start it again". */
export interface RestartIntake {
  restartId: string;
  user: string;
  channel?: string;
  responseUrl?: string;
}

const reply = { responseUrl: z.string().optional(), ephemeralThreadTs: z.string().optional() };

const startSchema: z.ZodType<StartIntake> = z.looseObject({
  teamId: z.string(),
  channel: z.string(),
  requester: z.string(),
  instruction: z.string(),
  threadTs: z.string().optional(),
  reactOnStatusMessage: z.boolean().optional(),
  contextFrom: z.array(z.string()).optional(),
  contextMessages: z.number().optional(),
  project: z.string().optional(),
  thread: z.looseObject({ ts: z.string() }).optional(),
  quoted: z.string().optional(),
  about: z.string().optional(),
  ...reply,
});

const replySchema: z.ZodType<ReplyIntake> = z.looseObject({
  teamId: z.string().optional(),
  jobId: z.string(),
  raw: z.string(),
  user: z.string(),
  channel: z.string(),
  botUserId: z.string().optional(),
  via: z.enum(['command', 'form']).optional(),
  ...reply,
});

const feedbackSchema: z.ZodType<FeedbackIntake> = clickSchema;

const homeSchema: z.ZodType<HomeIntake> = z.looseObject({ teamId: z.string(), user: z.string() });

const restartSchema: z.ZodType<RestartIntake> = z.looseObject({
  restartId: z.string(),
  user: z.string(),
  channel: z.string().optional(),
  responseUrl: z.string().optional(),
});

/** Kinds of intake the agent-jobs feature handles; all but the Home tab's have someone waiting on them (`awaited`). */
export const INTAKE = {
  start: intakeKind('agent-jobs.start', startSchema, { awaited: true }),
  reply: intakeKind('agent-jobs.reply', replySchema, { awaited: true }),
  home: intakeKind('agent-jobs.home', homeSchema),
  restart: intakeKind('agent-jobs.restart', restartSchema, { awaited: true }),
  feedback: intakeKind('agent-jobs.feedback', feedbackSchema, { awaited: true }),
  /** "Ask the agent to fix the build" under a failed preview: the same shape as a feedback click. */
  previewFix: intakeKind('agent-jobs.preview-fix', feedbackSchema as z.ZodType<PreviewFixIntake>, { awaited: true }),
};
