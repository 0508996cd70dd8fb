/**
 * What the agent-view listeners record before they ack: the intake kinds, each with its payload's
 * schema and version; the handlers take them from the intake, typed from these schemas.
 */
import { z } from 'zod';
import { intakeKind } from '../../platform/intake.js';

/**
 * Someone opened the app's Messages tab, or what they look at beside it changed: set its
 * suggestions. `channel` is their DM with the app; `viewing` the channel they look at, if any.
 */
export interface PromptsIntake {
  teamId: string;
  user: string;
  channel: string;
  viewing?: string;
}

const promptsSchema: z.ZodType<PromptsIntake> = z.looseObject({
  teamId: z.string(),
  user: z.string(),
  channel: z.string(),
  viewing: z.string().optional(),
});

/** Kinds of intake the agent-view feature handles: nobody waits on a suggestion (not `awaited`: given up quietly). */
export const INTAKE = { prompts: intakeKind('agent-view.prompts', promptsSchema) };
