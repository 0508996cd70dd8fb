/** What the visitors listeners record before they ack (the intake kinds and their payloads); the handlers take them from the intake. */
import type { AccessAction } from '../../platform/access.js';
import type { Respond } from '../../platform/slack/respond.js';
import type { RangeSpec } from './query.js';

/** Kinds of intake the visitors feature handles. */
export const INTAKE = {
  report: 'visitors.report',
  page: 'visitors.page',
  retry: 'visitors.retry',
  subcommand: 'visitors.subcommand',
} as const;

/** Who ran a command, where. */
export interface Caller {
  teamId: string;
  channel: string;
  user: string;
  /** The command's response_url (a subcommand's later answers, e.g. a digest that could not be posted). */
  responseUrl?: string;
}

/**
 * `/docs-visitors <name> …` subcommands that the feature above provides (digests: `subscribe`, …);
 * digests owns the `/docs-visitors` command and routes reports here.
 */
export interface VisitorsSubcommands {
  /** Names handled, lower case. */
  names: readonly string[];
  /** Lines of `/docs-visitors help` (mrkdwn bullets) and examples (inline code). */
  helpLines: readonly string[];
  examples: readonly string[];
  /**
   * Checks the words after the name (pure: no network), in the listener before the ack and again
   * in the worker. @returns what to run, or the ephemeral answer for a mistake.
   */
  prepare(name: string, args: string[]): { ok: true; run(caller: Caller, respond: Respond): Promise<void> } | { ok: false; message: string };
  /** What running `name` amounts to, for the access gate (e.g. `subscribe` → `manage_digests`). */
  actionOf(name: string): AccessAction;
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
  value: string | undefined;
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
