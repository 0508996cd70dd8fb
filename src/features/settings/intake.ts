/**
 * What the settings listeners record before they ack: the intake kinds, each with its payload's
 * schema and version; the handlers take them from the intake, typed from these schemas.
 */
import { z } from 'zod';
import { intakeKind } from '../../platform/intake.js';
import type { SettingsCommand } from './command.js';
import type { SettingsChange } from './store.js';

/** `/docs-settings …` (already checked), recorded. */
export interface CommandIntake {
  teamId: string;
  channel: string;
  user: string;
  responseUrl: string;
  /** Every form is recorded (help and mistakes too): only full members may see any of it. */
  command: SettingsCommand;
}

/** The settings modal's submission (already checked), recorded. */
export interface SaveIntake {
  teamId: string;
  channel: string;
  user: string;
  change: SettingsChange;
}

const scope = z.looseObject({
  version: z.string().optional(),
  language: z.string().optional(),
  groups: z.array(z.string()).optional(),
});
const experts = z.looseObject({ kind: z.enum(['channel', 'usergroup']), id: z.string() });
const policy = z.enum(['anyone', 'requester']);
const mentions = z.enum(['auto', 'ask', 'edit']);

const commandSchema: z.ZodType<CommandIntake> = z.looseObject({
  teamId: z.string(),
  channel: z.string(),
  user: z.string(),
  responseUrl: z.string(),
  command: z.discriminatedUnion('kind', [
    z.looseObject({ kind: z.literal('show') }),
    z.looseObject({ kind: z.literal('help') }),
    z.looseObject({ kind: z.literal('project'), projectId: z.string().nullable() }),
    z.looseObject({ kind: z.literal('followups'), policy: policy.nullable() }),
    z.looseObject({ kind: z.literal('mentions'), mode: mentions.nullable() }),
    z.looseObject({ kind: z.literal('answer-all'), on: z.boolean() }),
    z.looseObject({ kind: z.literal('scope'), scope: scope.nullable() }),
    z.looseObject({ kind: z.literal('experts'), experts: experts.nullable() }),
    z.looseObject({ kind: z.literal('invalid'), message: z.string() }),
  ]),
});

const saveSchema: z.ZodType<SaveIntake> = z.looseObject({
  teamId: z.string(),
  channel: z.string(),
  user: z.string(),
  change: z.looseObject({
    projectId: z.string().nullable().optional(),
    followupPolicy: policy.nullable().optional(),
    mentions: mentions.nullable().optional(),
    answerAll: z.boolean().nullable().optional(),
    scope: scope.nullable().optional(),
  }),
});

/**
 * Kinds of intake the settings feature handles. Version 2 (both): a command may be `mentions`, and
 * a save may change `mentions`; version 3: a command may be `answer-all`, `scope` or `experts`, and a save
 * may change `answerAll`. A replica that knows only an older version would refuse the one and
 * silently drop the change of the other, so it leaves them to a newer replica.
 */
export const INTAKE = {
  command: intakeKind('settings.command', commandSchema, { version: 3, awaited: true }),
  save: intakeKind('settings.save', saveSchema, { version: 3, awaited: true }),
};
