/**
 * The settings in words, shared by the settings message, the modal, the change announcements and
 * the usage: one wording for each setting, for who may change them, and for asking being off.
 */
import type { FollowupPolicy, MentionsMode } from './store.js';

/** The answer-all setting in words (the settings message and the modal). */
export const ANSWER_ALL_WORDS = {
  on: 'every new message from a person is taken as a question (a question channel)',
  off: 'only mentions, DMs and `/docs-ask` are answered',
};

/** A mentions mode in words (the settings message and the modal). */
export const MENTIONS_WORDS: Record<MentionsMode, string> = {
  auto: 'a question or a docs change, by how it is phrased',
  ask: 'always a question to the docs',
  edit: 'always a docs change',
};

/** A follow-up policy in words (the settings message and the modal's default option). */
export function followupWords(p: FollowupPolicy): string {
  return p === 'requester'
    ? 'only the person who started a job can continue it'
    : 'anyone in the channel can continue a job from its thread';
}

/**
 * Who may change settings, with the next step: "Workspace admins and <@U1> can change them: ask
 * one of them." (ADMIN_USERS mentioned; Slack shows the names). The one wording of the settings
 * message, the usage and the refusal.
 */
export function whoMayChangeText(adminUsers: readonly string[]): string {
  const who = adminUsers.length
    ? `Workspace admins and ${adminUsers.map((u) => `<@${u}>`).join(', ')}`
    : 'Workspace admins';
  return `${who} can change them: ask one of them.`;
}

/**
 * Asking the docs is off (no DOCS_ASSISTANT_API_KEY / DOCS_DOMAIN): what that means for the
 * channel, and who can change it. Conversations route every mention to agent-jobs and question
 * channels answer nothing while it is off.
 */
export const ASKING_OFF_TEXT =
  "asking the docs isn't set up, so a mention always starts a docs job and no message is answered as a question; " +
  'the people who run Docs Agent set it up';

/**
 * Added to a change (or a repeat) of mentions, answer-all, scope or docs team while asking is off:
 * `changed` says it was saved.
 */
export function askingOffNote(changed: boolean): string {
  const effect =
    'no effect until asking the docs is set up (the people who run Docs Agent set it up): ' +
    'until then a mention always starts a docs job and no message is answered as a question.';
  return changed ? `Saved, but it has ${effect}` : `It has ${effect}`;
}

/** The hint of the modal's question inputs while asking is off (Slack: hint ≤ 2000 characters). */
export const ASKING_OFF_HINT =
  "Asking the docs isn't set up, so this is saved but has no effect until the people who run Docs Agent set it up.";

/** The usage's line while asking is off: which settings wait for it. */
export const ASKING_OFF_USAGE =
  "Asking the docs isn't set up here: a mention always starts a docs job and no message is answered as a question, " +
  'so `mentions`, `answer-all`, `scope` and `experts` are saved but have no effect until the people who run Docs Agent set it up.';
