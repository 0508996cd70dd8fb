/**
 * What the reports listeners record before they ack: the intake kinds, each with its payload's
 * schema and version; the handlers take them from the intake, typed from these schemas.
 */
import { z } from 'zod';
import { intakeKind } from '../../platform/intake.js';
import { SHORTCUTS } from './date-range.js';
import { REPORT_KINDS } from './menu.js';
import type { RangeSpec, SignalKind } from './query.js';

/** Who ran a command, where. */
export interface Caller {
  teamId: string;
  channel: string;
  user: string;
  /** The command's response_url (a subcommand's later answers, e.g. a digest that could not be posted). */
  responseUrl?: string;
}

/** `/docs-visitors [FROM] [TO] [limit=N]`, recorded. */
export interface ReportIntake {
  caller: Caller;
  range: RangeSpec;
  limit: number;
  responseUrl: string;
}
/** Previous / Next / Retry, recorded. */
export interface ButtonIntake {
  /** The button's `action_id`: what its value must be signed for (absent in records of older versions: refused). */
  actionId?: string | undefined;
  value?: string | undefined;
  user: string;
  channel?: string;
  messageTs?: string;
  responseUrl?: string;
}
/** `/docs-visitors searches|feedback|questions [FROM] [TO] [limit=N]`, recorded. */
export interface SignalReportIntake {
  caller: Caller;
  report: SignalKind;
  range: RangeSpec;
  /** Rows per page. */
  limit: number;
  responseUrl: string;
}
/** A report chosen in a report's menu, recorded. */
export interface MenuIntake {
  /** The menu block's `block_id`: the signed dates and project of the report it sits on. */
  blockId?: string | undefined;
  /** The report chosen (the option's `value`; checked again by the handler). */
  report: string;
  user: string;
  channel?: string;
  messageTs?: string;
  responseUrl?: string;
}
/** A subcommand, recorded with its words (checked again by its feature). */
export interface SubcommandIntake {
  name: string;
  args: string[];
  caller: Caller;
  responseUrl: string;
}

/** Retry on a failed digest, recorded. */
export interface DigestRetryIntake {
  /** The button's signed value: the digest's workspace and channel (absent in version 1 records: refused). */
  value?: string | undefined;
  teamId: string;
  channel: string;
  user: string;
  /** The failure notice, edited to say the digest is on its way. */
  ts?: string;
  responseUrl?: string;
}

const retrySchema: z.ZodType<DigestRetryIntake> = z.looseObject({
  value: z.string().optional(),
  teamId: z.string(),
  channel: z.string(),
  user: z.string(),
  ts: z.string().optional(),
  responseUrl: z.string().optional(),
});

const callerSchema = z.looseObject({
  teamId: z.string(),
  channel: z.string(),
  user: z.string(),
  responseUrl: z.string().optional(),
});
const parsedDate = z.looseObject({ value: z.string(), ms: z.number(), dateOnly: z.boolean() });
const rangeSchema: z.ZodType<RangeSpec> = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('default') }),
  z.looseObject({ type: z.literal('shortcut'), shortcut: z.enum(SHORTCUTS) }),
  z.looseObject({ type: z.literal('dates'), from: parsedDate, to: parsedDate.optional() }),
]);

const reportSchema: z.ZodType<ReportIntake> = z.looseObject({
  caller: callerSchema,
  range: rangeSchema,
  limit: z.number(),
  responseUrl: z.string(),
});
const buttonSchema: z.ZodType<ButtonIntake> = z.looseObject({
  actionId: z.string().optional(),
  value: z.string().optional(),
  user: z.string(),
  channel: z.string().optional(),
  messageTs: z.string().optional(),
  responseUrl: z.string().optional(),
});
const subcommandSchema: z.ZodType<SubcommandIntake> = z.looseObject({
  name: z.string(),
  args: z.array(z.string()),
  caller: callerSchema,
  responseUrl: z.string(),
});

const signalReportSchema: z.ZodType<SignalReportIntake> = z.looseObject({
  caller: callerSchema,
  report: z.enum(REPORT_KINDS.filter((k): k is SignalKind => k !== 'visitors') as [SignalKind, ...SignalKind[]]),
  range: rangeSchema,
  limit: z.number(),
  responseUrl: z.string(),
});
const menuSchema: z.ZodType<MenuIntake> = z.looseObject({
  blockId: z.string().optional(),
  report: z.string(),
  user: z.string(),
  channel: z.string().optional(),
  messageTs: z.string().optional(),
  responseUrl: z.string().optional(),
});

/** Kinds of intake the reports feature handles. `digests.retry` is version 2: its `value` must be checked (a replica of version 1 would queue the digest without it). */
export const INTAKE = {
  report: intakeKind('visitors.report', reportSchema, { awaited: true }),
  page: intakeKind('visitors.page', buttonSchema, { awaited: true }),
  retry: intakeKind('visitors.retry', buttonSchema, { awaited: true }),
  subcommand: intakeKind('visitors.subcommand', subcommandSchema, { awaited: true }),
  /** `/docs-visitors searches|feedback|questions …`. */
  signalReport: intakeKind('visitors.signals-report', signalReportSchema, { awaited: true }),
  /** Previous / Next on those reports. */
  signalPage: intakeKind('visitors.signals-page', buttonSchema, { awaited: true }),
  /** Retry on one of them that could not be loaded. */
  signalRetry: intakeKind('visitors.signals-retry', buttonSchema, { awaited: true }),
  /** A report chosen in a report's menu. */
  menu: intakeKind('visitors.menu', menuSchema, { awaited: true }),
  /** Retry on a failed digest. */
  digestRetry: intakeKind('digests.retry', retrySchema, { awaited: true, version: 2 }),
};
