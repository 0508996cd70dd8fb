import type { InputBlock, KnownBlock, ModalView, View } from '@slack/types';
import { z } from 'zod';
import { truncate } from '../../platform/slack/limits.js';
import { channelId } from '../../platform/slack/payloads.js';
import type { ValueSigner } from '../../platform/slack/signed-value.js';
import type { EffectiveSettings } from './service.js';
import { scopeText } from './scope.js';
import { expertsText } from './experts.js';
import { FOLLOWUP_POLICIES, MENTIONS_MODES, type FollowupPolicy, type MentionsMode } from './store.js';

/** `action_id` of the Edit button on the settings message (admins only). */
export const ACTION_EDIT = 'settings.edit';
/** `callback_id` of the settings modal. */
export const EDIT_CALLBACK_ID = 'settings_edit';
/** block_id / action_id of the modal's inputs. */
export const PROJECT_BLOCK = 'project';
export const PROJECT_ACTION = 'project';
export const FOLLOWUPS_BLOCK = 'followups';
export const FOLLOWUPS_ACTION = 'followups';
export const MENTIONS_BLOCK = 'mentions';
const MENTIONS_ACTION = 'mentions';
export const ANSWER_ALL_BLOCK = 'answer_all';
const ANSWER_ALL_ACTION = 'answer_all';

/** The answer-all setting in words (the settings message and the modal). */
const ANSWER_ALL_WORDS = {
  on: 'every new message from a person is taken as a question (a question channel)',
  off: 'only mentions, DMs and `/docs-ask` are answered',
};

/** A mentions mode in words (the settings message and the modal). */
const MENTIONS_WORDS: Record<MentionsMode, string> = {
  auto: 'a question or a docs change, by how it is phrased',
  ask: 'always a question to the docs',
  edit: 'always a docs change',
};

/** What the settings message shows besides the settings themselves (from other features). */
interface SettingsContext {
  channel: string;
  /** Who may start jobs here, in words (the access policy's; default "every full member"). */
  access: string;
  /** This channel's digest subscription, in words. */
  digest: string;
  /** Whether to offer the Edit button (the viewer is a settings admin); `unknown` when that could not be checked. */
  canEdit: boolean | 'unknown';
}

function followupWords(p: FollowupPolicy): string {
  return p === 'requester'
    ? 'only the person who started a job can continue it'
    : 'anyone in the channel can continue a job from its thread';
}

/** What the Edit button's value (the channel) is signed for (src/platform/slack/signed-value.ts). */
export const EDIT_BUTTON_PURPOSE = 'settings.edit';
/** What the settings modal's `private_metadata` is signed for. */
export const EDIT_MODAL_PURPOSE = 'settings.modal';

/**
 * The channel's effective settings as an ephemeral message: docs project, who may start jobs,
 * follow-up policy, digest subscription; an Edit button for admins (its value is the channel, signed).
 */
export function buildSettingsMessage(
  s: EffectiveSettings,
  ctx: SettingsContext,
  signer: Pick<ValueSigner, 'sign'>,
): { text: string; blocks: KnownBlock[] } {
  const project = `\`${s.projectId}\`${s.projectIsDefault ? ' (the default project)' : ''}`;
  const stale = s.staleProjectId
    ? `\n:warning: This channel was set to \`${s.staleProjectId}\`, which is no longer configured; the default is used.`
    : '';
  const lines = [
    `*Docs project:* ${project}${stale}`,
    `*Who may start jobs here:* ${truncate(ctx.access, 500)}`,
    `*Follow-ups:* ${followupWords(s.followupPolicy)}${s.followupIsDefault ? ' (the workspace default)' : ''}`,
    `*A mention of the bot is:* ${MENTIONS_WORDS[s.mentions]}`,
    `*Questions:* ${s.answerAll ? ANSWER_ALL_WORDS.on : ANSWER_ALL_WORDS.off}`,
    `*Docs scope:* ${scopeText(s.scope) ?? 'all the docs'}`,
    `*Ask the docs team:* ${expertsText(s.experts) ?? 'no one set (`/docs-settings experts #channel|@group`)'}`,
    `*Weekly digest:* ${truncate(ctx.digest, 500)}`,
  ];
  const blocks: KnownBlock[] = [
    { type: 'section', text: { type: 'mrkdwn', text: `*Docs Agent settings for <#${ctx.channel}>*` } },
    { type: 'section', text: { type: 'mrkdwn', text: lines.join('\n') } },
  ];
  const footer = s.updatedBy ? `Last changed by <@${s.updatedBy}>. ` : '';
  if (ctx.canEdit === true) {
    const label = { type: 'plain_text' as const, text: 'Edit' };
    const value = signer.sign(EDIT_BUTTON_PURPOSE, ctx.channel);
    const edit = { type: 'button' as const, text: label, action_id: ACTION_EDIT, value };
    blocks.push({ type: 'actions', elements: [edit] });
    blocks.push({
      type: 'context',
      elements: [
        {
          type: 'mrkdwn',
          text:
            `${footer}Or type \`/docs-settings project PROJECT_ID\` · \`/docs-settings followups anyone|requester\` · ` +
            `\`/docs-settings mentions auto|ask|edit\`; \`/docs-settings help\` lists every setting and how to change it.`,
        },
      ],
    });
  } else {
    const why =
      ctx.canEdit === 'unknown'
        ? "I couldn't check whether you may change them."
        : "Workspace admins and the bot's settings admins can change them; `/docs-settings help` explains each.";
    blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: `${footer}${why}` }] });
  }
  const text = `Docs Agent settings for this channel: docs project ${s.projectId}; follow-ups: ${s.followupPolicy}.`;
  return { text, blocks };
}

const metadataSchema = z.object({ c: channelId });

/**
 * The channel a settings modal edits, from its `private_metadata`, when the bot signed it and it
 * has a channel id's shape; else why not (`unsigned`/`tampered`: not the bot's; `malformed`).
 */
export function decodeEditMetadata(
  raw: string | undefined,
  signer: Pick<ValueSigner, 'open'>,
): { ok: true; channel: string } | { ok: false; reason: 'unsigned' | 'tampered' | 'malformed' } {
  const opened = signer.open(EDIT_MODAL_PURPOSE, raw);
  if (!opened.ok) return opened;
  try {
    return { ok: true, channel: metadataSchema.parse(JSON.parse(opened.payload)).c };
  } catch {
    return { ok: false, reason: 'malformed' };
  }
}

/** A plain-text option of a select or radio input (Slack: option text ≤ 75 characters). */
function option(text: string, value: string) {
  return { text: { type: 'plain_text' as const, text: truncate(text, 75) }, value };
}

/** The modal's docs project input: a static select of the configured projects (Slack: ≤ 100 options), the first the default. */
function projectInput(projects: readonly string[], current: string): InputBlock {
  const options = projects.slice(0, 100).map((p, i) => option(i === 0 ? `${p} (default)` : p, p));
  return {
    type: 'input',
    block_id: PROJECT_BLOCK,
    label: { type: 'plain_text', text: 'Docs project' },
    hint: {
      type: 'plain_text',
      text: "This channel's new jobs, reports and digests use it. Jobs already running keep theirs.",
    },
    element: {
      type: 'static_select',
      action_id: PROJECT_ACTION,
      options,
      initial_option: options[Math.max(0, projects.indexOf(current))] ?? options[0],
    },
  };
}

/** The modal's follow-up policy input (radio buttons). */
function followupsInput(current: FollowupPolicy): InputBlock {
  const policyOption = (p: FollowupPolicy) =>
    option(p === 'anyone' ? 'Anyone in the channel' : 'Only the person who started the job', p);
  return {
    type: 'input',
    block_id: FOLLOWUPS_BLOCK,
    label: { type: 'plain_text', text: 'Who may continue a job from its thread' },
    element: {
      type: 'radio_buttons',
      action_id: FOLLOWUPS_ACTION,
      options: FOLLOWUP_POLICIES.map(policyOption),
      initial_option: policyOption(current),
    },
  };
}

/** The modal's mentions mode input (radio buttons). */
function mentionsInput(current: MentionsMode): InputBlock {
  const mentionsOption = (m: MentionsMode) => option(MENTIONS_WORDS[m], m);
  return {
    type: 'input',
    block_id: MENTIONS_BLOCK,
    label: { type: 'plain_text', text: 'A mention of the bot in this channel is' },
    element: {
      type: 'radio_buttons',
      action_id: MENTIONS_ACTION,
      options: MENTIONS_MODES.map(mentionsOption),
      initial_option: mentionsOption(current),
    },
  };
}

/** The modal's answer-all input (radio buttons): off or on. */
function answerAllInput(current: boolean): InputBlock {
  const answerOption = (on: boolean) =>
    option(
      on ? 'Every new message from a person (a question channel)' : 'Only mentions, DMs and /docs-ask',
      on ? 'on' : 'off',
    );
  return {
    type: 'input',
    block_id: ANSWER_ALL_BLOCK,
    label: { type: 'plain_text', text: 'Questions answered in this channel' },
    hint: { type: 'plain_text', text: 'In a question channel each new top-level message is answered in its thread.' },
    element: {
      type: 'radio_buttons',
      action_id: ANSWER_ALL_ACTION,
      options: [answerOption(false), answerOption(true)],
      initial_option: answerOption(current),
    },
  };
}

/**
 * The settings modal (views.open): the docs project (a static select of the configured projects),
 * the follow-up policy, the mentions mode and answer-all (radio buttons), pre-set to the channel's effective
 * settings.
 */
export function buildEditModal(
  channel: string,
  s: EffectiveSettings,
  projects: readonly string[],
  signer: Pick<ValueSigner, 'sign'>,
): ModalView {
  return {
    type: 'modal',
    callback_id: EDIT_CALLBACK_ID,
    private_metadata: signer.sign(EDIT_MODAL_PURPOSE, JSON.stringify({ c: channel })),
    title: { type: 'plain_text', text: 'Channel settings' },
    submit: { type: 'plain_text', text: 'Save' },
    close: { type: 'plain_text', text: 'Cancel' },
    blocks: [
      {
        type: 'section',
        text: { type: 'mrkdwn', text: `Docs Agent settings for <#${channel}>. Every change is logged.` },
      },
      projectInput(projects, s.projectId),
      followupsInput(s.followupPolicy),
      mentionsInput(s.mentions),
      answerAllInput(s.answerAll),
    ],
  } satisfies View as ModalView;
}

/** The modal's answers, read from a view_submission's `state.values`. */
interface EditValues {
  projectId: string | undefined;
  followupPolicy: string | undefined;
  /** Absent in forms opened before the mentions input existed. */
  mentions: string | undefined;
  /** `on` or `off`; absent in forms opened before the answer-all input existed. */
  answerAll: string | undefined;
}

/** `o[k]` when `o` is an object, else undefined (for payloads of any shape). */
const pick = (o: unknown, k: string): unknown =>
  typeof o === 'object' && o !== null ? (o as Record<string, unknown>)[k] : undefined;

/** The value of a select or radio input in a view's `state.values`; undefined unless it is a string. */
function selectedValue(values: unknown, block: string, action: string): string | undefined {
  const v = pick(pick(pick(pick(values, block), action), 'selected_option'), 'value');
  return typeof v === 'string' ? v : undefined;
}

/** Reads the modal's answers from `state.values` of any shape (untrusted: checked by the caller). */
export function readEditValues(values: unknown): EditValues {
  return {
    projectId: selectedValue(values, PROJECT_BLOCK, PROJECT_ACTION),
    followupPolicy: selectedValue(values, FOLLOWUPS_BLOCK, FOLLOWUPS_ACTION),
    mentions: selectedValue(values, MENTIONS_BLOCK, MENTIONS_ACTION),
    answerAll: selectedValue(values, ANSWER_ALL_BLOCK, ANSWER_ALL_ACTION),
  };
}
