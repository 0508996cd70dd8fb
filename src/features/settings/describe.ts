/** What a settings change did, in words for the channel and as the audit trail's from/to. */
import { expertsText, type Experts } from './experts.js';
import { scopeText } from './scope.js';
import type { DocsScope, FollowupPolicy, MentionsMode } from './store.js';

/** The settings a change is told by (what `EffectiveSettings` has). */
interface EffectiveSettings {
  projectId: string;
  followupPolicy: FollowupPolicy;
  mentions: MentionsMode;
  answerAll: boolean;
  scope?: DocsScope;
  experts?: Experts;
}

/** `project proj_b, follow-ups requester` (for the "already" answer). */
export function summary(s: EffectiveSettings): string {
  return `docs project \`${s.projectId}\`, follow-ups by ${s.followupPolicy}`;
}

type Part = { text: string; from: string; to: string };

/** What changed of the asking settings (answer-all, scope, experts). */
function askingParts(before: EffectiveSettings, after: EffectiveSettings): Part[] {
  const parts: Part[] = [];
  if (before.answerAll !== after.answerAll) {
    const what = after.answerAll
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

/** What changed, in words and as audit from/to; undefined when nothing did. */
export function describeChange(
  before: EffectiveSettings,
  after: EffectiveSettings,
): { text: string; from: string; to: string } | undefined {
  const parts: { text: string; from: string; to: string }[] = [];
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
  if (before.mentions !== after.mentions) {
    const what = {
      auto: 'a question or a docs change by how it is phrased',
      ask: 'always a question to the docs',
      edit: 'always a docs change',
    }[after.mentions];
    const [from, to] = [`mentions=${before.mentions}`, `mentions=${after.mentions}`];
    parts.push({ text: `mentions: ${what} (was ${before.mentions})`, from, to });
  }
  parts.push(...askingParts(before, after));
  if (!parts.length) return undefined;
  return {
    text: parts.map((p) => p.text).join('; '),
    from: parts.map((p) => p.from).join(','),
    to: parts.map((p) => p.to).join(','),
  };
}
