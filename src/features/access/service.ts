import {
  promptTooLongText,
  type AccessAction,
  type AccessDecision,
  type AccessGate,
  type Actor,
  type AgentCall,
  type RefusalReason,
} from '../../platform/access.js';
import { audit } from '../../platform/audit.js';
import type { Logger } from '../../platform/logger.js';
import { nextSlotText } from '../../platform/slack/dates.js';
import type { AgentBudget } from './budget.js';
import type { SlackDirectory } from './directory.js';
import {
  affiliationOf,
  CHECK_FAILED_TEXT,
  decideAccess,
  needsGroupCheck,
  type AccessPolicyConfig,
  type Affiliation,
  type UserFacts,
} from './policy.js';
import { quoteToken } from '../../platform/slack/limits.js';

/** What the access service needs. */
interface AccessDeps {
  policy: AccessPolicyConfig;
  directory: Pick<SlackDirectory, 'user' | 'inAnyGroup' | 'home'>;
  budget: Pick<AgentBudget, 'take' | 'give' | 'block' | 'remaining' | 'opts'>;
  /** DOCS_PROJECT_ID (the budget shown when no project is named, unless the workspace has its own). */
  defaultProject: string;
  /** AGENT_PROMPT_MAX_CHARS. */
  promptMaxChars: number;
  /** The docs project a channel uses (DOCS_PROJECT_ID unless the channel's settings say otherwise). */
  projectFor(channel: string): Promise<string>;
  /**
   * The docs projects the current request's (or worker's) workspace may use (DOCS_WORKSPACE_PROJECTS);
   * absent: every project may be used (none mapped).
   */
  workspaceProjects?: () => readonly string[];
  /** Called with the requests left in a project's hourly budget after each admitted call (the metrics gauge). */
  onBudget?: (project: string, remaining: number) => void;
  logger: Logger;
  /** Clock, epoch ms. */
  now: () => number;
}

/** Back-off after a 429 without Retry-After (the vendor documents none), in ms. */
const RATE_LIMITED_DEFAULT_MS = 60_000;

/** A decision that refuses. */
type Refusal = Extract<AccessDecision, { allowed: false }>;

/** Writes the refusal's audit line and returns it. */
function refused(
  deps: AccessDeps,
  actor: Actor,
  channel: string,
  action: AccessAction,
  d: Refusal,
  extra: Record<string, unknown> = {},
): Refusal {
  audit(deps.logger, { actor: actor.user, channel, action, outcome: 'refused', reason: d.reason, ...extra });
  return d;
}

/** The policy over the person's facts (and group membership when it matters); a failed lookup is `check_failed`. */
async function check(
  deps: AccessDeps,
  actor: Actor,
  action: AccessAction,
  channel: string,
): Promise<{ decision: AccessDecision; facts?: UserFacts; affiliation?: Affiliation }> {
  try {
    const [facts, home] = await Promise.all([deps.directory.user(actor.user), deps.directory.home()]);
    const inAllowedGroup = needsGroupCheck(deps.policy, action, actor.user)
      ? await deps.directory.inAnyGroup(actor.user, deps.policy.allowedUsergroups)
      : undefined;
    const decision = decideAccess(deps.policy, {
      facts,
      homeTeamId: home.teamId,
      ...(home.enterpriseId !== undefined ? { homeEnterpriseId: home.enterpriseId } : {}),
      action,
      channel,
      ...(inAllowedGroup !== undefined ? { inAllowedGroup } : {}),
    });
    return { decision, facts, affiliation: affiliationOf(facts, home) };
  } catch (err) {
    deps.logger.warn({ err, user: actor.user, action }, 'could not check access; refused (fail closed)');
    return { decision: { allowed: false, reason: 'check_failed', text: CHECK_FAILED_TEXT } };
  }
}

/** Tells `onBudget` (the metrics gauge) what is left of `project`'s budget; never rejects. */
function reportBudget(deps: AccessDeps, project: string, user: string): Promise<void> {
  return deps.onBudget
    ? deps.budget.remaining(user, project).then(
        (r) => deps.onBudget?.(project, r.project),
        () => undefined,
      )
    : Promise.resolve();
}

/**
 * The project an agent call counts against: its own, else the channel's. Undefined when the
 * channel's can't be read (logged at warn): the caller then leaves the budget as it is, and the
 * count lapses with its hourly window.
 */
async function projectOf(deps: AccessDeps, call: AgentCall): Promise<string | undefined> {
  if (call.project) return call.project;
  try {
    return await deps.projectFor(call.channel);
  } catch (err) {
    deps.logger.warn({ err, channel: call.channel }, "could not read the channel's docs project; budget left as it is");
    return undefined;
  }
}

/**
 * The refusal of a docs project this workspace may not use (DOCS_WORKSPACE_PROJECTS): the id is
 * quoted inert (backticks replaced, cut at 100), the workspace's own projects listed.
 */
function projectNotAllowedText(project: string, allowed: readonly string[]): string {
  const shown = `\`${quoteToken(project, 100)}\``;
  const list = allowed.map((p) => `\`${p}\``).join(', ');
  return `The docs project ${shown} isn't one of this workspace's. Use one of: ${list} (an operator maps projects to workspaces). Nothing was sent to the docs agent.`;
}

/**
 * {@link AccessGate.admitAgentCall}: the policy, then the prompt cap, then the workspace's projects
 * (a project of another workspace is refused, costing no API call), then one request from the
 * person's and the project's budgets. A budget Redis can't read refuses (fail closed).
 */
async function admitAgentCall(deps: AccessDeps, call: AgentCall): Promise<AccessDecision> {
  const { actor, channel, action } = call;
  const { decision, facts, affiliation } = await check(deps, actor, action, channel);
  const who = affiliation ? { affiliation } : {};
  if (!decision.allowed) return refused(deps, actor, channel, action, decision, who);
  const cap = deps.promptMaxChars;
  if (call.promptChars > cap) {
    const tooLong: Refusal = {
      allowed: false,
      reason: 'prompt_too_long',
      text: promptTooLongText(call.promptChars, cap),
    };
    return refused(deps, actor, channel, action, tooLong, { promptChars: call.promptChars, ...who });
  }
  try {
    const project = call.project ?? (await deps.projectFor(channel));
    const allowed = deps.workspaceProjects?.();
    if (allowed && !allowed.includes(project)) {
      const text = projectNotAllowedText(project, allowed);
      return refused(
        deps,
        actor,
        channel,
        action,
        { allowed: false, reason: 'project_not_allowed', text },
        { project, ...who },
      );
    }
    const taken = await deps.budget.take(actor.user, project);
    if (!taken.ok) {
      const reason: RefusalReason = taken.which === 'user' ? 'user_budget' : 'project_budget';
      const text = budgetText(deps, taken.which, taken.msBeforeNext, facts?.tz);
      return refused(deps, actor, channel, action, { allowed: false, reason, text }, { project, ...who });
    }
    void reportBudget(deps, project, actor.user);
    return { allowed: true };
  } catch (err) {
    deps.logger.warn({ err, user: actor.user }, 'could not check the agent budget; refused (fail closed)');
    const failed: Refusal = { allowed: false, reason: 'check_failed', text: CHECK_FAILED_TEXT };
    return refused(deps, actor, channel, action, failed, who);
  }
}

/**
 * The access gate (see {@link AccessGate}): the policy over the person's Slack facts, the prompt
 * cap, and the shared agent budget. Every refusal writes one audit line (with the person's
 * `affiliation` when Slack could say who they are: which rule of "other organizations" applied); a check that cannot be
 * made (Slack or Redis failing) refuses with "I couldn't check your access" (fail closed).
 */
export function createAccessGate(deps: AccessDeps): AccessGate {
  return {
    async authorize(actor, action, channel, opts) {
      const { decision, affiliation } = await check(deps, actor, action, channel);
      if (decision.allowed || opts?.audit === false) return decision;
      return refused(deps, actor, channel, action, decision, affiliation ? { affiliation } : {});
    },
    admitAgentCall: (call) => admitAgentCall(deps, call),
    async refund(call) {
      const project = await projectOf(deps, call);
      if (!project) return;
      await deps.budget
        .give(call.actor.user, project)
        .catch((err: unknown) => deps.logger.warn({ err }, 'could not give back an agent request'));
      await reportBudget(deps, project, call.actor.user);
    },
    async budgetLeft(user, project = deps.workspaceProjects?.()[0] ?? deps.defaultProject) {
      try {
        const left = await deps.budget.remaining(user, project);
        const { perProject, perUser } = deps.budget.opts;
        return { projectId: project, project: left.project, perProject, user: left.user, perUser };
      } catch {
        return undefined; // App Home shows no budget line when Redis can't say
      }
    },
    async noteRateLimited(call, retryAfterMs) {
      const project = await projectOf(deps, call);
      if (!project) return;
      const msg = 'the docs API is rate limiting agent requests; holding new ones until it frees';
      deps.logger.warn({ project, retryAfterMs }, msg);
      await deps.budget
        .block(project, retryAfterMs ?? RATE_LIMITED_DEFAULT_MS)
        .catch((err: unknown) => deps.logger.warn({ err }, 'could not record the docs API rate limit'));
    },
  };
}

/**
 * "The docs agent's hourly budget for this project is used up (100 requests/hour). Next free slot:
 * 14:32 (in 7 min)." The time is Slack's `<!date>` token (each reader's own zone) with a fallback
 * in the person's `users.info` zone.
 */
export function budgetText(
  deps: Pick<AccessDeps, 'budget' | 'now'>,
  which: 'user' | 'project',
  msBeforeNext: number,
  tz: string | undefined,
): string {
  const slot = nextSlotText(deps.now(), msBeforeNext, tz);
  return which === 'project'
    ? `The docs agent's hourly budget for this project is used up (${deps.budget.opts.perProject} requests/hour). ${slot}`
    : `You've used your hourly budget of docs agent requests (${deps.budget.opts.perUser} requests/hour). ${slot}`;
}
