/**
 * The access port: what features ask before they spend the docs agent, change what others
 * receive, or show reports. Implemented by the access feature (src/features/access); features
 * depend on this interface only, and main.ts passes the implementation in.
 */
import { withinTime } from './time-limit.js';

/** Who is asking: a Slack user id (`U…`/`W…`) and, when the payload carries it, their team. */
export interface Actor {
  user: string;
  teamId?: string;
}

/**
 * What they want to do:
 * - `start_job` / `continue_job`: spend the agent (every entry point that creates a job or sends a follow-up);
 * - `manage_digests`: subscribe, unsubscribe, send a digest now, retry a digest;
 * - `read_reports`: `/docs-visitors` reports, their paging and Retry, `subscriptions`;
 * - `view_settings`: `/docs-settings` in any form (it shows allow-lists, admins, who subscribed);
 * - `change_settings`: `/docs-settings` changes;
 * - `ask`: ask the docs assistant (`/docs-ask`, a mention or DM taken as a question, a reply in an
 *   answer's thread); by default the rules of `start_job`, or every full member (ASK_ACCESS).
 */
export type AccessAction =
  'start_job' | 'continue_job' | 'manage_digests' | 'read_reports' | 'view_settings' | 'change_settings' | 'ask';

/** Why a request was refused (the audit log's `reason`). */
export type RefusalReason =
  | 'guest'
  | 'external'
  | 'not_a_person'
  | 'not_allowed_user'
  | 'not_allowed_channel'
  | 'not_admin'
  | 'check_failed'
  | 'user_budget'
  | 'project_budget'
  | 'prompt_too_long'
  | 'project_not_allowed';

/** The answer: allowed, or refused with the reason and the sentence to show that person (ephemeral). */
export type AccessDecision = { allowed: true } | { allowed: false; reason: RefusalReason; text: string };

/** One agent request to admit: who, where, which project, and the instruction's length (characters). */
export interface AgentCall {
  actor: Actor;
  channel: string;
  action: 'start_job' | 'continue_job';
  /** The docs project the call goes to (default: the channel's). */
  project?: string;
  /** Length of the instruction sent to the agent, in characters. */
  promptChars: number;
}

/** Agent requests left this hour, of how many, and the docs project whose budget it is (`projectId`). */
export interface BudgetLeft {
  projectId: string;
  project: number;
  perProject: number;
  user: number;
  perUser: number;
}

/** The gate every entry point goes through. Never throws: a check that cannot be made is a refusal (`check_failed`). */
export interface AccessGate {
  /**
   * Policy only (who, where): no budget is spent. A refusal writes the audit line unless
   * `opts.audit` is false (for callers that write their own, e.g. settings changes).
   */
  authorize(actor: Actor, action: AccessAction, channel: string, opts?: { audit?: boolean }): Promise<AccessDecision>;
  /** Policy, then the prompt cap, then one request from the user's and the project's hourly budgets. */
  admitAgentCall(call: AgentCall): Promise<AccessDecision>;
  /** Gives back a request admitted but never sent (e.g. the status message could not be posted). */
  refund(call: AgentCall): Promise<void>;
  /** The docs API answered 429 to `call`: its project's budget counts as spent for `retryAfterMs` (default 60 s). */
  noteRateLimited(call: AgentCall, retryAfterMs: number | undefined): Promise<void>;
  /** What is left of the budgets for `user` in `project` (default: the default project); undefined when Redis can't say. */
  budgetLeft(user: string, project?: string): Promise<BudgetLeft | undefined>;
}

/** The answer to an instruction over AGENT_PROMPT_MAX_CHARS (its length and the limit; no truncated job). */
export function promptTooLongText(chars: number, max: number): string {
  return `Your instruction is ${chars.toLocaleString('en-US')} characters long; the limit is ${max.toLocaleString('en-US')}. Shorten it, or send the rest as a follow-up in the job's thread.`;
}

/** Sentence when a check could not be made in time or at all (fail closed). */
export const ACCESS_CHECK_FAILED_TEXT = "I couldn't check your access, so I didn't do anything. Try again in a moment.";

/**
 * {@link AccessGate.authorize} within `ms` (for checks that must finish before an ack or while a
 * `trigger_id` is valid: Slack gives 3 s). Too slow counts as a check that could not be made.
 */
export async function authorizeWithin(
  gate: Pick<AccessGate, 'authorize'>,
  actor: Actor,
  action: AccessAction,
  channel: string,
  ms: number,
): Promise<AccessDecision> {
  return withinTime<AccessDecision>(gate.authorize(actor, action, channel), ms, () => ({
    allowed: false,
    reason: 'check_failed',
    text: ACCESS_CHECK_FAILED_TEXT,
  }));
}

/** A gate that allows everything: for unit tests of features and for tools that run without Slack users. */
export const OPEN_GATE: AccessGate = {
  authorize: () => Promise.resolve({ allowed: true }),
  admitAgentCall: () => Promise.resolve({ allowed: true }),
  refund: () => Promise.resolve(),
  noteRateLimited: () => Promise.resolve(),
  budgetLeft: () => Promise.resolve(undefined),
};
