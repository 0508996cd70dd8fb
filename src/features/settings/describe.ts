/** What a settings change did, in words for the channel and as the audit trail's from/to. */
import { expertsText, type Experts } from './experts.js';
import { scopeText } from './scope.js';
import type { DocsScope, FollowupPolicy, MentionsMode } from './store.js';
import { MENTIONS_WORDS } from './words.js';

/** The settings a change is told by (what `EffectiveSettings` has). */
interface EffectiveSettings {
  projectId: string;
  /** No project of the channel's own: it follows DOCS_PROJECT_ID. */
  projectFollowsDefault: boolean;
  followupPolicy: FollowupPolicy;
  /** No policy of the channel's own: it follows FOLLOWUP_POLICY. */
  followupIsDefault: boolean;
  mentions: MentionsMode;
  answerAll: boolean;
  scope?: DocsScope;
  experts?: Experts;
}

/** The settings a `/docs-settings` subcommand or the form changes, as `already` names them. */
type AskedAbout = 'project' | 'followups' | 'mentions' | 'answer-all' | 'scope' | 'experts' | 'edit';

const projectWords = (s: EffectiveSettings) =>
  `docs project \`${s.projectId}\`${s.projectFollowsDefault ? ' (the default project)' : ''}`;
const followupsWords = (s: EffectiveSettings) =>
  `follow-ups by ${s.followupPolicy}${s.followupIsDefault ? ' (the workspace default)' : ''}`;

/**
 * The setting that was asked about as it is, for the "already" answer: `docs project \`proj_b\``,
 * `mentions \`ask\``…; the form (`edit`): each of its fields.
 */
export function summary(s: EffectiveSettings, action: `settings.${AskedAbout}`): string {
  const asked = action.slice('settings.'.length) as AskedAbout;
  const one: Record<Exclude<AskedAbout, 'edit'>, () => string> = {
    project: () => projectWords(s),
    followups: () => followupsWords(s),
    mentions: () => `mentions \`${s.mentions}\``,
    'answer-all': () => `answer-all ${s.answerAll ? 'on' : 'off'}`,
    scope: () => `docs scope: ${scopeText(s.scope) ?? 'all the docs'}`,
    experts: () => `docs team: ${expertsText(s.experts) ?? 'no one'}`,
  };
  if (asked !== 'edit') return one[asked]();
  return [one.project(), one.followups(), one.mentions(), one['answer-all']()].join(', ');
}

type Part = { text: string; from: string; to: string };

/** What changed of the asking settings (answer-all, scope, experts). */
function askingParts(before: EffectiveSettings, after: EffectiveSettings, asking: boolean): Part[] {
  const parts: Part[] = [];
  if (before.answerAll !== after.answerAll) {
    const what = !asking
      ? `${after.answerAll ? 'on' : 'off'} (was ${before.answerAll ? 'on' : 'off'})`
      : after.answerAll
        ? 'every new message from a person here is answered as a question'
        : 'only mentions, DMs and `/docs-ask` are answered';
    parts.push({
      text: `answer-all: ${what}`,
      from: `answerAll=${before.answerAll}`,
      to: `answerAll=${after.answerAll}`,
    });
  }
  const [fromScope, toScope] = [scopeText(before.scope), scopeText(after.scope)];
  if (fromScope !== toScope) {
    const audit = (x?: DocsScope) => `scope=${x ? JSON.stringify(x) : 'all'}`;
    const text = `questions are answered from ${toScope ?? 'all the docs'} (was ${fromScope ?? 'all the docs'})`;
    parts.push({ text, from: audit(before.scope), to: audit(after.scope) });
  }
  const [fromExperts, toExperts] = [expertsText(before.experts), expertsText(after.experts)];
  if (fromExperts !== toExperts) {
    const [from, to] = [`experts=${before.experts?.id ?? 'none'}`, `experts=${after.experts?.id ?? 'none'}`];
    parts.push({
      text: `unanswered questions go to ${toExperts ?? 'no one'} (was ${fromExperts ?? 'no one'})`,
      from,
      to,
    });
  }
  return parts;
}

/**
 * The project or follow-up policy that stayed the same value but started or stopped following the
 * workspace default (the form's Workspace default option, `/docs-settings … default`).
 */
function defaultParts(before: EffectiveSettings, after: EffectiveSettings): Part[] {
  const parts: Part[] = [];
  if (before.projectId === after.projectId && before.projectFollowsDefault !== after.projectFollowsDefault) {
    const [own, dflt] = [`project=${after.projectId}`, 'project=default'];
    parts.push(
      after.projectFollowsDefault
        ? { text: `docs project: the default project again (now \`${after.projectId}\`)`, from: own, to: dflt }
        : {
            text: `docs project \`${after.projectId}\`, set for this channel (not the default project any more)`,
            from: dflt,
            to: own,
          },
    );
  }
  if (before.followupPolicy === after.followupPolicy && before.followupIsDefault !== after.followupIsDefault) {
    const [own, dflt] = [`followups=${after.followupPolicy}`, 'followups=default'];
    parts.push(
      after.followupIsDefault
        ? { text: `follow-ups: the workspace default again (now ${after.followupPolicy})`, from: own, to: dflt }
        : {
            text: `follow-ups by ${after.followupPolicy}, set for this channel (not the workspace default any more)`,
            from: dflt,
            to: own,
          },
    );
  }
  return parts;
}

/**
 * What changed, in words and as audit from/to, and whether a setting only asking uses (mentions,
 * answer-all, scope, docs team) changed; undefined when nothing did. A channel that starts or stops
 * following the default project or follow-up policy has changed, even with the same value.
 * @param asking - whether asking the docs is set up: else mentions and answer-all are told as their values.
 */
export function describeChange(
  before: EffectiveSettings,
  after: EffectiveSettings,
  asking = true,
): { text: string; from: string; to: string; asking: boolean } | undefined {
  const parts: Part[] = [...defaultParts(before, after)];
  if (before.projectId !== after.projectId) {
    parts.push({
      text: `docs project \`${after.projectId}\` (was \`${before.projectId}\`)`,
      from: `project=${before.projectId}`,
      to: `project=${after.projectId}`,
    });
  }
  if (before.followupPolicy !== after.followupPolicy) {
    const who =
      after.followupPolicy === 'requester'
        ? 'only the person who started a job may continue it'
        : 'anyone in the channel may continue a job';
    parts.push({
      text: `follow-ups: ${who} (was ${before.followupPolicy})`,
      from: `followups=${before.followupPolicy}`,
      to: `followups=${after.followupPolicy}`,
    });
  }
  const asked = askingParts(before, after, asking);
  if (before.mentions !== after.mentions) {
    const what = asking ? MENTIONS_WORDS[after.mentions] : `\`${after.mentions}\``;
    const [from, to] = [`mentions=${before.mentions}`, `mentions=${after.mentions}`];
    asked.unshift({ text: `mentions: ${what} (was ${before.mentions})`, from, to });
  }
  const all = [...parts, ...asked];
  if (!all.length) return undefined;
  return {
    text: all.map((p) => p.text).join('; '),
    from: all.map((p) => p.from).join(','),
    to: all.map((p) => p.to).join(','),
    asking: asked.length > 0,
  };
}
