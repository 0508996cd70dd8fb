/** What the agent-jobs listeners record before they ack (the intake kinds and their payloads); the handlers take them from the intake. */
import type { IncomingMessage } from './messages.js';
import type { StartJobRequest } from './service.js';

/** Kinds of intake the agent-jobs feature handles. */
export const INTAKE = {
  start: 'agent-jobs.start',
  message: 'agent-jobs.message',
  reply: 'agent-jobs.reply',
  home: 'agent-jobs.home',
  restart: 'agent-jobs.restart',
  feedback: 'agent-jobs.feedback',
} as const;

/** Where to tell the person privately: a command's or click's `response_url`, else an ephemeral in the channel. */
export interface Reply {
  responseUrl?: string;
  /** For `chat.postEphemeral` when there is no response_url. */
  ephemeralThreadTs?: string;
}

/**
 * A request to start a job (`/docs-edit`, "Improve with agent", "Document this thread"); `thread`
 * names the thread (in `channel`) whose messages go to the agent as context.
 */
export type StartIntake = Omit<StartJobRequest, 'requestKey' | 'receivedAt' | 'prompt'> & Reply & { thread?: { ts: string } };
/** A person's message that may be for the bot. */
export interface MessageIntake {
  msg: IncomingMessage;
  botUserId: string | undefined;
}
/** `/docs-reply <job-id> <instruction>`, or the follow-up form of "Document this thread" on a job's thread. */
export interface ReplyIntake extends Reply {
  /** The workspace of the request (names are looked up per team); absent in intakes recorded before it was added. */
  teamId?: string;
  jobId: string;
  /** The instruction as typed (Slack markup; plain text when `via` is `form`). */
  raw: string;
  user: string;
  channel: string;
  botUserId: string | undefined;
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
