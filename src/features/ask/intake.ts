/**
 * What the ask listeners record before they ack: the intake kinds, each with its payload's schema
 * and version; the handlers take them from the intake, typed from these schemas. (Questions in
 * mentions, DMs and answer threads arrive as messages: the conversations feature records those.)
 */
import { z } from 'zod';
import { intakeKind, type ReplyTo } from '../../platform/intake.js';
import { clickSchema, type ClickIntake } from '../../platform/slack/click.js';

/** Where one asker is told privately: always a user and a conversation (a `response_url` when there is one). */
export type TellTarget = ReplyTo & { user: string; channel: string };

/** `/docs-ask <question>`. */
export interface QuestionIntake {
  teamId: string;
  channel: string;
  user: string;
  /** As typed (Slack markup), at most the listener's cut; `textChars` its length when cut. */
  raw: string;
  textChars?: number;
  responseUrl: string;
}

/** A click on an answer's button (👍/👎, Make this a docs change, Ask the docs team). */
export type { ClickIntake };

const questionSchema: z.ZodType<QuestionIntake> = z.looseObject({
  teamId: z.string(),
  channel: z.string(),
  user: z.string(),
  raw: z.string(),
  textChars: z.number().optional(),
  responseUrl: z.string(),
});

/** Kinds of intake the ask feature handles. */
export const INTAKE = {
  question: intakeKind('ask.question', questionSchema, { awaited: true }),
  feedback: intakeKind('ask.feedback', clickSchema, { awaited: true }),
  change: intakeKind('ask.change', clickSchema, { awaited: true }),
  experts: intakeKind('ask.experts', clickSchema, { awaited: true }),
};
