import { quoteToken } from '../../platform/slack/limits.js';
import { EXPERTS_USAGE, parseExperts, type Experts } from './experts.js';
import { parseScope, SCOPE_USAGE } from './scope.js';
import { ASKING_OFF_USAGE, whoMayChangeText } from './words.js';
import { FOLLOWUP_POLICIES, MENTIONS_MODES, type DocsScope, type FollowupPolicy, type MentionsMode } from './store.js';

/** `/docs-settings …` as typed, checked (pure: no network). */
export type SettingsCommand =
  | { kind: 'show' }
  | { kind: 'help' }
  /** `projectId` null: back to the default project (DOCS_PROJECT_ID). */
  | { kind: 'project'; projectId: string | null }
  /** `policy` null: back to the workspace default (FOLLOWUP_POLICY). */
  | { kind: 'followups'; policy: FollowupPolicy | null }
  /** `mode` null: back to `auto`. */
  | { kind: 'mentions'; mode: MentionsMode | null }
  /** `answer-all on|off`: every new top-level message from a person is a question (on), or not. */
  | { kind: 'answer-all'; on: boolean }
  /** `scope version=… language=… groups=…|off`: `scope` null is all the docs. */
  | { kind: 'scope'; scope: DocsScope | null }
  /** `experts #channel|@usergroup|off`: checked again by the worker (the bot in the channel, the group exists). */
  | { kind: 'experts'; experts: Experts | null }
  | { kind: 'invalid'; message: string };

/** What the usage says besides the settings: who may change them, and whether asking the docs is set up. */
export interface UsageFacts {
  /** ADMIN_USERS, named as who may change settings besides workspace admins. */
  adminUsers: readonly string[];
  /** Whether asking the docs is set up (the ask feature's `configured`). */
  asking: boolean;
}

/** Usage of `/docs-settings`, shown for `help` and with every mistake. */
export function settingsUsage(projects: readonly string[], facts: UsageFacts): string {
  const askingOff = facts.asking ? [] : [ASKING_OFF_USAGE];
  return [
    '*Usage:*',
    "• `/docs-settings`: this channel's settings (docs project, who may start jobs, follow-ups, digest)",
    `• \`/docs-settings project PROJECT_ID\`: the docs project this channel's jobs and reports use (${projectList(projects)}; \`default\` goes back to \`${projects[0] ?? ''}\`)`,
    '• `/docs-settings followups anyone|requester`: who may continue a job from its thread (`default` goes back to the workspace policy)',
    '• `/docs-settings mentions auto|ask|edit`: whether a mention of the bot here is a question to the docs, a docs change, or (`auto`, the default) decided by how it is phrased',
    '• `/docs-settings answer-all on|off`: whether every new message from a person here (not replies, not bots) is taken as a question and answered in its thread',
    `• \`/docs-settings ${SCOPE_USAGE}\`: the docs version, language or groups this channel's questions are answered from (\`off\`: all the docs)`,
    `• \`/docs-settings ${EXPERTS_USAGE}\`: who gets a question the docs couldn't answer when someone clicks *Ask the docs team* (a channel it is posted in, or a user group mentioned in its thread)`,
    ...askingOff,
    whoMayChangeText(facts.adminUsers),
  ].join('\n');
}

/** The configured projects as inline code, the default first. */
export function projectList(projects: readonly string[]): string {
  return projects.map((p, i) => `\`${p}\`${i === 0 ? ' (default)' : ''}`).join(', ');
}

/**
 * Answer to a project id that is not configured: lists the valid ones (this workspace's, with
 * DOCS_WORKSPACE_PROJECTS), and who sets that list, in the words of the agent call's refusal
 * (access: projectNotAllowedText).
 */
function unknownProjectText(id: string, projects: readonly string[]): string {
  return `:warning: \`${quoteToken(id)}\` is not one of this workspace's docs projects. Choose one of ${projectList(projects)} (an operator sets which projects a workspace may use).`;
}

/**
 * Parses the text of `/docs-settings` (words separated by spaces; keywords case-insensitive,
 * project ids exact).
 *
 * @param projects - the configured projects, the default first (see `docsProjects`).
 * @param facts - who may change settings and whether asking is set up (for the usage).
 * @returns what to do, or `invalid` with the ephemeral answer (usage included).
 */
export function parseSettingsCommand(text: string, projects: readonly string[], facts: UsageFacts): SettingsCommand {
  const words = text.trim().split(/\s+/).filter(Boolean);
  const [first, second, ...rest] = words;
  const name = first?.toLowerCase();
  const invalid = (why: string): SettingsCommand => ({
    kind: 'invalid',
    message: `:warning: ${why}\n${settingsUsage(projects, facts)}`,
  });
  if (name === undefined || name === 'show')
    return words.length <= 1 ? { kind: 'show' } : invalid('`show` takes nothing after it.');
  if (name === 'help') return { kind: 'help' };
  if (name === 'project') {
    if (second === undefined) return invalid(`Which project? One of ${projectList(projects)}.`);
    if (rest.length) return invalid('Give one project id.');
    if (second.toLowerCase() === 'default' && !projects.includes(second)) return { kind: 'project', projectId: null };
    if (!projects.includes(second)) return { kind: 'invalid', message: unknownProjectText(second, projects) };
    return { kind: 'project', projectId: second };
  }
  if (name === 'followups' || name === 'follow-ups') {
    const policy = second?.toLowerCase();
    if (policy === undefined || rest.length)
      return invalid('Say `anyone`, `requester` or `default` after `followups`.');
    if (policy === 'default') return { kind: 'followups', policy: null };
    if (!(FOLLOWUP_POLICIES as readonly string[]).includes(policy))
      return invalid(`\`${quoteToken(second ?? '')}\` is not a follow-up policy: say \`anyone\` or \`requester\`.`);
    return { kind: 'followups', policy: policy as FollowupPolicy };
  }
  if (name === 'mentions') {
    const mode = second?.toLowerCase();
    if (mode === undefined || rest.length) return invalid('Say `auto`, `ask`, `edit` or `default` after `mentions`.');
    if (mode === 'default') return { kind: 'mentions', mode: null };
    if (!(MENTIONS_MODES as readonly string[]).includes(mode)) {
      return invalid(`\`${quoteToken(second ?? '')}\` is not a mentions mode: say \`auto\`, \`ask\` or \`edit\`.`);
    }
    return { kind: 'mentions', mode: mode as MentionsMode };
  }
  if (name === 'answer-all' || name === 'answerall') {
    const v = second?.toLowerCase();
    if ((v !== 'on' && v !== 'off') || rest.length) return invalid('Say `on` or `off` after `answer-all`.');
    return { kind: 'answer-all', on: v === 'on' };
  }
  if (name === 'scope') {
    const parsed = parseScope(words.slice(1));
    return 'error' in parsed ? invalid(parsed.error) : { kind: 'scope', scope: parsed.scope };
  }
  if (name === 'experts') {
    const parsed = parseExperts(words.slice(1));
    return 'error' in parsed ? invalid(parsed.error) : { kind: 'experts', experts: parsed.experts };
  }
  return invalid(`I don't know \`${quoteToken(first ?? '')}\`.`);
}
