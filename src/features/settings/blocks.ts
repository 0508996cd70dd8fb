import type { InputBlock, KnownBlock, ModalView, View } from '@slack/types';
import { z } from 'zod';
import { truncate } from '../../platform/slack/limits.js';
import { channelId } from '../../platform/slack/payloads.js';
import type { ValueSigner } from '../../platform/slack/signed-value.js';
import type { EffectiveSettings } from './service.js';
import { scopeText } from './scope.js';
import { EXPERTS_USAGE, expertsText } from './experts.js';
import {
  ANSWER_ALL_WORDS,
  ASKING_OFF_HINT,
  ASKING_OFF_TEXT,
  followupWords,
  MENTIONS_WORDS,
  whoMayChangeText,
} from './words.js';
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
export const MENTIONS_ACTION = 'mentions';
export const ANSWER_ALL_BLOCK = 'answer_all';
export const ANSWER_ALL_ACTION = 'answer_all';

/** What the settings message shows besides the settings themselves (from other features). */
interface SettingsContext {
  channel: string;
  /** Who may start jobs here, in words (the access policy's; default "every full member"). */
  access: string;
  /** This channel's digest subscription, in words. */
  digest: string;
  /** Whether to offer the Edit button (the viewer is a settings admin); `unknown` when that could not be checked. */
  canEdit: boolean | 'unknown';
  /** Whether asking the docs is set up (the ask feature's `configured`): else mentions and answer-all do nothing. */
  asking: boolean;
  /** ADMIN_USERS, named as who may change settings besides workspace admins. */
  adminUsers: readonly string[];
}

/** What the Edit button's value (the channel) is signed for (src/platform/slack/signed-value.ts). */
export const EDIT_BUTTON_PURPOSE = 'settings.edit';
/** What the settings modal's `private_metadata` is signed for. */
export const EDIT_MODAL_PURPOSE = 'settings.modal';

/**
 * The mentions and answer-all lines: the settings in words, or, while asking the docs is off, one
 * line saying so (and what is saved for when it is set up, when not the defaults).
 */
function questionLines(s: EffectiveSettings, asking: boolean): string[] {
  if (asking)
    return [
      `*A mention of the bot is:* ${MENTIONS_WORDS[s.mentions]}`,
      `*Questions:* ${s.answerAll ? ANSWER_ALL_WORDS.on : ANSWER_ALL_WORDS.off}`,
    ];
  const saved = [
    ...(s.mentions !== 'auto' ? [`mentions \`${s.mentions}\``] : []),
    ...(s.answerAll ? ['answer-all on'] : []),
  ];
  return [`*Questions:* ${ASKING_OFF_TEXT}.${saved.length ? ` Saved for when it is: ${saved.join(', ')}.` : ''}`];
}

/** The settings, one line each (Slack mrkdwn). */
function settingsLines(s: EffectiveSettings, ctx: SettingsContext): string[] {
  const project = `\`${s.projectId}\`${s.projectIsDefault ? ' (the default project)' : ''}`;
  const stale = s.staleProjectId
    ? `\n:warning: This channel was set to \`${s.staleProjectId}\`, which is no longer configured; the default is used.`
    : '';
  return [
    `*Docs project:* ${project}${stale}`,
    `*Who may start jobs here:* ${truncate(ctx.access, 500)}`,
    `*Follow-ups:* ${followupWords(s.followupPolicy)}${s.followupIsDefault ? ' (the workspace default)' : ''}`,
    ...questionLines(s, ctx.asking),
    `*Docs scope:* ${scopeText(s.scope) ?? 'all the docs'}`,
    `*Ask the docs team:* ${expertsText(s.experts) ?? `no one set (\`/docs-settings ${EXPERTS_USAGE}\`)`}`,
    `*Weekly digest:* ${truncate(ctx.digest, 500)}`,
  ];
}

/** Answer in the settings message when whether the viewer may change settings could not be checked. */
export const ADMIN_UNKNOWN_TEXT =
  "I couldn't check whether you may change them; run `/docs-settings` again in a moment to get *Edit* if you may.";

/**
 * The channel's effective settings as an ephemeral message: docs project, who may start jobs,
 * follow-up policy, mentions and questions (or that asking is off), scope, docs team, digest
 * subscription; an Edit button for admins (its value is the channel, signed), else who may change them.
 */
export function buildSettingsMessage(
  s: EffectiveSettings,
  ctx: SettingsContext,
  signer: Pick<ValueSigner, 'sign'>,
): { text: string; blocks: KnownBlock[] } {
  const blocks: KnownBlock[] = [
    { type: 'section', text: { type: 'mrkdwn', text: `*Docs Agent settings for <#${ctx.channel}>*` } },
    { type: 'section', text: { type: 'mrkdwn', text: settingsLines(s, ctx).join('\n') } },
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
        ? ADMIN_UNKNOWN_TEXT
        : `${whoMayChangeText(ctx.adminUsers)} \`/docs-settings help\` explains each setting.`;
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

/**
 * The value of the modal's "default" options: saves no value of the channel's own, so it follows
 * the workspace default (DOCS_PROJECT_ID, FOLLOWUP_POLICY) when that changes. Not a project id
 * (config: letters, digits, `_ . -`) nor a policy.
 */
export const DEFAULT_OPTION = ':default:';

/**
 * The modal's docs project input: a static select of "Default project (…)" and the configured
 * projects (Slack: ≤ 100 options); the default option preselected when the channel has no project
 * of its own (or one no longer configured).
 */
function projectInput(projects: readonly string[], s: EffectiveSettings): InputBlock {
  const byDefault = option(`Default project (${projects[0] ?? ''})`, DEFAULT_OPTION);
  const options = [byDefault, ...projects.slice(0, 99).map((p) => option(p, p))];
  // A project no longer configured is shown as the default it falls back to: saving the form unchanged keeps it that way.
  const own = s.projectFollowsDefault || s.staleProjectId ? undefined : options.find((o) => o.value === s.projectId);
  return {
    type: 'input',
    block_id: PROJECT_BLOCK,
    label: { type: 'plain_text', text: 'Docs project' },
    hint: {
      type: 'plain_text',
      text: "This channel's new jobs, reports and digests use it. Jobs already running keep theirs.",
    },
    element: { type: 'static_select', action_id: PROJECT_ACTION, options, initial_option: own ?? byDefault },
  };
}

/** The modal's follow-up policy input (radio buttons): the workspace default (preselected when the channel has no policy of its own), or one. */
function followupsInput(s: EffectiveSettings, defaultPolicy: FollowupPolicy): InputBlock {
  const policyOption = (p: FollowupPolicy) =>
    option(p === 'anyone' ? 'Anyone in the channel' : 'Only the person who started the job', p);
  const byDefault = option(
    `Workspace default (${defaultPolicy === 'anyone' ? 'anyone in the channel' : 'only the person who started it'})`,
    DEFAULT_OPTION,
  );
  return {
    type: 'input',
    block_id: FOLLOWUPS_BLOCK,
    label: { type: 'plain_text', text: 'Who may continue a job from its thread' },
    element: {
      type: 'radio_buttons',
      action_id: FOLLOWUPS_ACTION,
      options: [byDefault, ...FOLLOWUP_POLICIES.map(policyOption)],
      initial_option: s.followupIsDefault ? byDefault : policyOption(s.followupPolicy),
    },
  };
}

/** The modal's mentions mode input (radio buttons). */
function mentionsInput(current: MentionsMode, asking: boolean): InputBlock {
  const mentionsOption = (m: MentionsMode) => option(MENTIONS_WORDS[m], m);
  return {
    type: 'input',
    block_id: MENTIONS_BLOCK,
    label: { type: 'plain_text', text: 'A mention of the bot in this channel is' },
    ...(asking ? {} : { hint: { type: 'plain_text' as const, text: ASKING_OFF_HINT } }),
    element: {
      type: 'radio_buttons',
      action_id: MENTIONS_ACTION,
      options: MENTIONS_MODES.map(mentionsOption),
      initial_option: mentionsOption(current),
    },
  };
}

/** The modal's answer-all input (radio buttons): off or on. */
function answerAllInput(current: boolean, asking: boolean): InputBlock {
  const answerOption = (on: boolean) =>
    option(
      on ? 'Every new message from a person (a question channel)' : 'Only mentions, DMs and /docs-ask',
      on ? 'on' : 'off',
    );
  return {
    type: 'input',
    block_id: ANSWER_ALL_BLOCK,
    label: { type: 'plain_text', text: 'Questions answered in this channel' },
    hint: {
      type: 'plain_text',
      text: asking ? 'In a question channel each new top-level message is answered in its thread.' : ASKING_OFF_HINT,
    },
    element: {
      type: 'radio_buttons',
      action_id: ANSWER_ALL_ACTION,
      options: [answerOption(false), answerOption(true)],
      initial_option: answerOption(current),
    },
  };
}

/** What the modal says besides the channel's settings: the workspace defaults, and whether asking is set up. */
interface EditModalContext {
  /** FOLLOWUP_POLICY, named in the follow-ups' default option. */
  defaultFollowupPolicy: FollowupPolicy;
  /** Whether asking the docs is set up; else the mentions and answer-all inputs say they have no effect. */
  asking: boolean;
}

/**
 * The settings modal (views.open): the docs project (a static select of the default and the
 * configured projects), the follow-up policy (the workspace default or one), the mentions mode and
 * answer-all (radio buttons), pre-set to the channel's effective settings.
 */
export function buildEditModal(
  channel: string,
  s: EffectiveSettings,
  projects: readonly string[],
  signer: Pick<ValueSigner, 'sign'>,
  ctx: EditModalContext,
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
      projectInput(projects, s),
      followupsInput(s, ctx.defaultFollowupPolicy),
      mentionsInput(s.mentions, ctx.asking),
      answerAllInput(s.answerAll, ctx.asking),
    ],
  } satisfies View as ModalView;
}
