import type { ModalView } from '@slack/types';
import { z } from 'zod';
import { channelId, messageTs } from '../../../platform/slack/payloads.js';
import { unverifiedValueText, type ValueSigner } from '../../../platform/slack/signed-value.js';
import {
  instructionInput,
  jobFormButton,
  jobFormSubmission,
  jobModal,
  refuseUnverified,
  type JobForm,
  type JobFormDeps,
} from '../../agent-jobs/index.js';
import {
  decodeSignalImprove,
  quotedSignalSchema,
  SIGNAL_IMPROVE_PURPOSE,
  type QuotedSignal,
  type SignalImprove,
} from '../signals/improve.js';
import { signalAbout, signalGuidance, signalQuoted, signalShown } from '../signals/improve-text.js';
import { EDIT_HINT, QUOTED_LABEL, SHOWN_MAX } from './improve-modal.js';

/**
 * "Improve with agent" on a reader signal, in a report or a digest (block_actions
 * `visitors.signal.improve.<i>`): a modal like Document this's, with short editable guidance and,
 * under it, the signal read-only (the readers' words as an inert quote); submitting starts a docs
 * agent job in the thread of the message the button sits on, on the signal's docs project, through
 * the agent-jobs pipeline (access, the agent budget, status, announcement), with the signal sent to
 * the agent as quoted data apart from the instruction (`quoted`, fenced) and shown on the job as its
 * About line. The signal travels from the button to the submission in the modal's signed
 * `private_metadata`, never through the editable instruction.
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

/** Where the job starts (the message's channel and thread, the signal's docs project) and the signal it is about. */
interface SignalModalMetadata {
  channel: string;
  threadTs: string;
  projectId?: string | undefined;
  /** Absent in forms opened before the signal rode in the metadata (their instruction held it). */
  signal?: Pick<SignalImprove, 'signal' | 'rangeLabel'> | undefined;
}

const metadataSchema = z.object({
  c: channelId,
  t: messageTs,
  p: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,100}$/)
    .optional(),
  s: quotedSignalSchema.optional(),
  r: z.string().max(120).optional(),
});

/** Reads the modal's `private_metadata` (JSON, signed): where to start the job and the signal; throws on what it can't read. */
function readMetadata(json: unknown): SignalModalMetadata {
  const m = metadataSchema.parse(json);
  const signal = m.s ? { signal: { signal: m.s as QuotedSignal, rangeLabel: m.r ?? '' } } : {};
  return { channel: m.c, threadTs: m.t, ...(m.p ? { projectId: m.p } : {}), ...signal };
}

/**
 * Builds the modal for views.open: the guidance to edit, and the signal read-only under it. Its
 * `private_metadata` (signed; Slack: ≤ 3000 chars) carries the signal as the button did (≤ 2000
 * chars with its signature) plus the message's ts.
 * @param meta - the message's channel and ts (from the block_actions container) and the signal's project.
 */
export function buildSignalImproveModal(
  v: SignalImprove,
  meta: Omit<SignalModalMetadata, 'signal'>,
  signer: Pick<ValueSigner, 'sign'>,
): ModalView {
  const wire = {
    c: meta.channel,
    t: meta.threadTs,
    ...(meta.projectId ? { p: meta.projectId } : {}),
    s: v.signal,
    r: v.rangeLabel.slice(0, 120),
  };
  const where = meta.projectId ? ` on the docs project \`${meta.projectId}\`` : '';
  const lead = `The docs agent will work on it in this message's thread${where} and open a pull request.`;
  return jobModal({
    callbackId: SIGNAL_IMPROVE_CALLBACK_ID,
    title: 'Improve with agent',
    metadata: signer.sign(SIGNAL_MODAL_PURPOSE, JSON.stringify(wire)),
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: lead } },
      instructionInput(signalGuidance(v.signal), { hint: EDIT_HINT }),
      { type: 'context', elements: [{ type: 'mrkdwn', text: QUOTED_LABEL }] },
      { type: 'section', text: { type: 'mrkdwn', text: signalShown(v, SHOWN_MAX) } },
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

/**
 * The modal as its submission reads it: the job starts in the message's thread, on the signal's
 * project, with the signal (from the signed metadata, never from the form's input) sent to the agent
 * fenced as quoted data apart from the instruction, and as the job's About line.
 */
const SIGNAL_IMPROVE_FORM: JobForm<SignalModalMetadata> = {
  formName: 'the Improve with agent form',
  purpose: SIGNAL_MODAL_PURPOSE,
  read: readMetadata,
  blankText: 'Tell the agent what to change.',
  unverifiedText: unverifiedValueText('open the form again from the report or digest'),
  outcome: ({ channel, threadTs, projectId, signal }, instruction) => ({
    start: {
      channel,
      instruction,
      threadTs,
      reactOnStatusMessage: true,
      ...(projectId ? { project: projectId } : {}),
      ...(signal ? { quoted: signalQuoted(signal), about: signalAbout(signal.signal) } : {}),
    },
  }),
};

/**
 * Submission of the modal: a blank instruction or metadata the bot did not sign is refused inside
 * the modal; otherwise access and membership are checked again and the job start is recorded
 * (agent-jobs' intake: status message in the thread, on the signal's project).
 */
export const signalImproveSubmission = (deps: SignalImproveDeps) => jobFormSubmission(deps, SIGNAL_IMPROVE_FORM);
