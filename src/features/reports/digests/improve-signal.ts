import type { ModalView } from '@slack/types';
import { z } from 'zod';
import { truncate } from '../../../platform/slack/limits.js';
import { escapeReaderText } from '../../../platform/slack/markup.js';
import { channelId, messageTs } from '../../../platform/slack/payloads.js';
import { unverifiedValueText, type ValueSigner } from '../../../platform/slack/signed-value.js';
import {
  INSTRUCTION_MAX,
  instructionInput,
  jobFormButton,
  jobFormSubmission,
  jobModal,
  refuseUnverified,
  type JobForm,
  type JobFormDeps,
} from '../../agent-jobs/index.js';
import { countOf, inlineReaderPath, formatCount } from '../format.js';
import {
  cutQuoted,
  decodeSignalImprove,
  SIGNAL_IMPROVE_PURPOSE,
  signalInstruction,
  type SignalImprove,
} from '../signals/improve.js';
import { EDIT_HINT } from './improve-modal.js';

/**
 * "Improve with agent" on a reader signal, in a report or a digest (block_actions
 * `visitors.signal.improve.<i>`): the same modal as Improve on a falling page, pre-filled with an
 * instruction built from the signal (reader text fenced as quoted data), editable; submitting starts
 * a docs agent job in the thread of the message the button sits on, on the signal's docs project,
 * through the agent-jobs pipeline (access, the agent budget, status, announcement).
 */

/** `callback_id` of the modal. */
export const SIGNAL_IMPROVE_CALLBACK_ID = 'visitors_improve_signal';
/** What the modal's `private_metadata` is signed for (src/platform/slack/signed-value.ts). */
export const SIGNAL_MODAL_PURPOSE = 'digests.improve-signal-modal';

/** Answer to a button on a message of another conversation than the one it was made for. */
export const OTHER_CONVERSATION_TEXT =
  'This button belongs to another conversation, so I did nothing. Use the one on the report or digest there.';
/** Answer to a button of a project no longer configured, or a value that can't be read. */
export const OLDER_SIGNAL_TEXT =
  "This button belongs to an older report or digest I can't read any more; run `/docs-visitors` again.";
/** Answer to a value the bot did not sign. */
export const SIGNAL_UNVERIFIED_TEXT = unverifiedValueText(
  'use the button on a newer report, or start a job with `/docs-edit`',
);

/** What the button and the modal need (the digests listeners' deps have it all). */
interface SignalImproveDeps extends JobFormDeps {
  /**
   * The configured docs projects: an Improve on a signal of another one is not followed (a
   * function: the current workspace's, DOCS_WORKSPACE_PROJECTS).
   */
  projects: readonly string[] | (() => readonly string[]);
}

/** Where the job starts: the message's channel and thread, and the signal's docs project. */
interface SignalModalMetadata {
  channel: string;
  threadTs: string;
  projectId?: string | undefined;
}

const metadataSchema = z.object({
  c: channelId,
  t: messageTs,
  p: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,100}$/)
    .optional(),
});

/** Reads the modal's `private_metadata` (JSON, signed): where to start the job; throws on what it can't read. */
function readMetadata(json: unknown): SignalModalMetadata {
  const m = metadataSchema.parse(json);
  return { channel: m.c, threadTs: m.t, ...(m.p ? { projectId: m.p } : {}) };
}

/** What the modal says above the instruction (reader text quoted already, cut: a modal is mrkdwn too). */
function summary(v: SignalImprove): string {
  const range = escapeReaderText(v.rangeLabel, 120);
  const s = v.signal;
  switch (s.kind) {
    case 'search':
      return (
        `Readers searched the docs for “${cutQuoted(s.term, 120)}” ${countOf(s.hits, 'time')} (${range}) ` +
        'and clicked no result.'
      );
    case 'feedback':
      return (
        `${inlineReaderPath(s.path, 80)}: ` +
        `👎 ${formatCount(s.thumbsDown)}, 👍 ${formatCount(s.thumbsUp)} (${range}), ` +
        `${countOf(s.comments.length, 'comment')} quoted in the instruction.`
      );
    case 'question':
      return (
        `Readers asked the docs assistant “${cutQuoted(s.question, 200)}” ` +
        `${countOf(s.count, 'time')} (${range}); it could not answer.`
      );
  }
}

/**
 * Builds the modal for views.open: the signal in words, and the instruction to edit.
 * @param meta - the message's channel and ts (from the block_actions container) and the signal's project.
 */
export function buildSignalImproveModal(
  v: SignalImprove,
  meta: SignalModalMetadata,
  signer: Pick<ValueSigner, 'sign'>,
): ModalView {
  const wire = { c: meta.channel, t: meta.threadTs, ...(meta.projectId ? { p: meta.projectId } : {}) };
  const where = meta.projectId ? ` on the docs project \`${meta.projectId}\`` : '';
  const text =
    `${summary(v)}\nThe docs agent will work on it in this message's thread${where} and open a pull request. ` +
    "Readers' words are quoted in the instruction as data, not instructions.";
  return jobModal({
    callbackId: SIGNAL_IMPROVE_CALLBACK_ID,
    title: 'Improve with agent',
    metadata: signer.sign(SIGNAL_MODAL_PURPOSE, JSON.stringify(wire)),
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text } },
      instructionInput(truncate(signalInstruction(v), INSTRUCTION_MAX), { hint: EDIT_HINT }),
    ],
  });
}

/**
 * The Improve button on a signal: acks, then opens the modal with views.open (the trigger_id is valid
 * for 3 s) — only for a value the bot signed, on the message of the conversation it was made for, of
 * a configured docs project, for someone the access policy lets start jobs there and who is a member
 * of it (agent-jobs' `jobFormButton`: checked within 1.5 s; a refusal is told privately and opens nothing).
 */
export function signalImproveAction(deps: SignalImproveDeps) {
  return jobFormButton(deps, 'the Improve with agent modal of a signal', (body, value) => {
    const decoded = decodeSignalImprove(value, deps.signer);
    if (!decoded.ok && decoded.reason !== 'malformed')
      return refuseUnverified(deps, SIGNAL_IMPROVE_PURPOSE, decoded.reason, body, SIGNAL_UNVERIFIED_TEXT);
    const channel = body.channel?.id ?? body.container?.channel_id;
    const ts = body.container?.message_ts ?? body.message?.ts;
    if (!decoded.ok || !channel || !ts) return { say: OLDER_SIGNAL_TEXT };
    const v = decoded.improve;
    if (v.channel !== channel) return { say: OTHER_CONVERSATION_TEXT };
    const projects = typeof deps.projects === 'function' ? deps.projects() : deps.projects;
    if (v.projectId !== undefined && !projects.includes(v.projectId)) return { say: OLDER_SIGNAL_TEXT };
    const meta = { channel, threadTs: ts, projectId: v.projectId };
    return { channel, view: () => buildSignalImproveModal(v, meta, deps.signer) };
  });
}

/** The modal as its submission reads it: the job starts in the message's thread, on the signal's project. */
const SIGNAL_IMPROVE_FORM: JobForm<SignalModalMetadata> = {
  formName: 'the Improve with agent form',
  purpose: SIGNAL_MODAL_PURPOSE,
  read: readMetadata,
  blankText: 'Tell the agent what to change.',
  unverifiedText: unverifiedValueText('open the form again from the report or digest'),
  outcome: ({ channel, threadTs, projectId }, instruction) => ({
    start: { channel, instruction, threadTs, reactOnStatusMessage: true, ...(projectId ? { project: projectId } : {}) },
  }),
};

/**
 * Submission of the modal: a blank instruction or metadata the bot did not sign is refused inside
 * the modal; otherwise access and membership are checked again and the job start is recorded
 * (agent-jobs' intake: status message in the thread, on the signal's project).
 */
export const signalImproveSubmission = (deps: SignalImproveDeps) => jobFormSubmission(deps, SIGNAL_IMPROVE_FORM);
