/**
 * What the message listeners record before they ack: people's messages that may be for the bot. The
 * kind keeps its first name, `agent-jobs.message`, so that records made before this feature took
 * messages over from agent-jobs are handled the same during a rolling upgrade (the payload is
 * unchanged; version 1).
 */
import { z } from 'zod';
import { intakeKind } from '../../platform/intake.js';
import type { IncomingMessage } from '../agent-jobs/index.js';

/** A person's message that may be for the bot. */
export interface MessageIntake {
  msg: IncomingMessage;
  botUserId?: string | undefined;
}

const messageSchema: z.ZodType<MessageIntake> = z.looseObject({
  msg: z.looseObject({
    teamId: z.string(),
    channel: z.string(),
    channelType: z.string().optional(),
    user: z.string(),
    text: z.string(),
    textChars: z.number().optional(),
    ts: z.string(),
    thread_ts: z.string().optional(),
    viaMention: z.boolean(),
  }),
  botUserId: z.string().optional(),
});

/**
 * The message kind: the name agent-jobs gave it. `questionChannel`: a new top-level message in a
 * question channel (`/docs-settings answer-all on`), taken by the question-channel rule
 * (`./question-channel.ts`); a kind of its own, so a replica that does not know it leaves it to one
 * that does (it would take it for channel chatter).
 */
export const INTAKE = {
  message: intakeKind('agent-jobs.message', messageSchema, { awaited: true }),
  questionChannel: intakeKind('conversations.question-channel', messageSchema, { awaited: true }),
};
