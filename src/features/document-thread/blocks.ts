import type { KnownBlock, ModalView } from '@slack/types';
import { z } from 'zod';
import { escapeReaderText } from '../../platform/slack/markup.js';
import { channelId, messageTs } from '../../platform/slack/payloads.js';
import type { ValueSigner } from '../../platform/slack/signed-value.js';
import { instructionInput, jobIdCode, jobModal, openSigned, type JobModal } from '../agent-jobs/index.js';
import type { ThreadPreview } from '../thread-context/index.js';

/**
 * The "Document this thread" modal (Slack: modals, views.open / views.update). It opens at once
 * with "Reading the thread…" (the trigger_id lasts 3 s), then is updated with a preview of the
 * thread and the instruction input, or with why the bot can't read the conversation.
 */

/** `callback_id` of the message shortcut (manifest.yml `shortcuts`). */
export const SHORTCUT_CALLBACK_ID = 'document_thread';
/** `callback_id` of the modal (its view_submission). */
export const MODAL_CALLBACK_ID = 'document_thread_modal';
/** The instruction the input starts with. */
const DEFAULT_INSTRUCTION = 'Update the docs with what was decided in this thread.';

/**
 * Where the job goes: the conversation and the thread's root ts (kept in `private_metadata`);
 * `jobId` when the thread already belongs to a job (the form sends a follow-up to it).
 */
export interface ThreadRef {
  channel: string;
  threadTs: string;
  jobId?: string;
}

const metadataSchema = z.object({
  c: channelId,
  t: messageTs,
  j: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,100}$/)
    .optional(),
});

/** What the modal's `private_metadata` is signed for (src/platform/slack/signed-value.ts). */
export const THREAD_REF_PURPOSE = 'document-thread.modal';

/** `private_metadata` of the modal: the ref as JSON, signed (≤ 200 chars; Slack: ≤ 3000). */
export function encodeThreadRef(ref: ThreadRef, signer: Pick<ValueSigner, 'sign'>): string {
  const wire = { c: ref.channel, t: ref.threadTs, ...(ref.jobId ? { j: ref.jobId } : {}) };
  return signer.sign(THREAD_REF_PURPOSE, JSON.stringify(wire));
}

/** Which modal a builder makes: its `external_id`, and its signed `private_metadata` ({@link modalAt}). */
interface ModalAt {
  externalId: string;
  metadata: string;
}

/** The modal `externalId` about `ref` (the job's id in `ref` when the form sends a follow-up). */
export function modalAt(externalId: string, ref: ThreadRef, signer: Pick<ValueSigner, 'sign'>): ModalAt {
  return { externalId, metadata: encodeThreadRef(ref, signer) };
}

/** The modal `at` (agent-jobs' job form frame), with `blocks`; nothing to submit unless `submit` says. */
function modal(at: ModalAt, blocks: KnownBlock[], more: Pick<JobModal, 'submit' | 'close'> = {}): ModalView {
  const frame = { callbackId: MODAL_CALLBACK_ID, externalId: at.externalId, metadata: at.metadata };
  return jobModal({ ...frame, title: 'Document this thread', blocks, submit: null, ...more });
}

/** A modal that only says `text` (mrkdwn); nothing to submit. */
function noticeModal(at: ModalAt, text: string): ModalView {
  return modal(at, [{ type: 'section', text: { type: 'mrkdwn', text } }], { close: 'OK' });
}

/** What {@link decodeThreadRef} found. */
type DecodedThreadRef = { ok: true; ref: ThreadRef } | { ok: false; reason: 'unsigned' | 'tampered' | 'malformed' };

/**
 * Decodes the modal's `private_metadata`: the ref when the bot signed it and it has Slack's id
 * shapes; else why not (`unsigned`/`tampered`: not the bot's; `malformed`: the bot's, but unreadable).
 */
export function decodeThreadRef(raw: string | undefined, signer: Pick<ValueSigner, 'open'>): DecodedThreadRef {
  const opened = openSigned(signer, THREAD_REF_PURPOSE, raw, readThreadRef);
  return opened.ok ? { ok: true, ref: opened.meta } : opened;
}

/** Reads a {@link ThreadRef} from the JSON of the modal's `private_metadata` (throws on what it can't read). */
export function readThreadRef(json: unknown): ThreadRef {
  const m = metadataSchema.parse(json);
  return { channel: m.c, threadTs: m.t, ...(m.j ? { jobId: m.j } : {}) };
}

/** The modal as views.open shows it at once: the thread is still being read. */
export function loadingModal(at: ModalAt): ModalView {
  return modal(at, [
    { type: 'section', text: { type: 'mrkdwn', text: ':hourglass_flowing_sand: Reading the thread…' } },
  ]);
}

/** "<@U1>, <@U2> and 3 others" (Slack renders the mentions as names; no one is notified in a modal). */
function authorsText(authors: string[]): string {
  const shown = authors.slice(0, 3).map((u) => `<@${u}>`);
  const more = authors.length - shown.length;
  if (more > 0) return `${shown.join(', ')} and ${more} ${more === 1 ? 'other' : 'others'}`;
  return shown.length > 1 ? `${shown.slice(0, -1).join(', ')} and ${shown.at(-1)}` : (shown[0] ?? '');
}

/** What the preview says about the thread, as mrkdwn. */
export function previewText(p: Extract<ThreadPreview, { ok: true }>): string {
  if (p.messages === 0) return 'No one has written in this thread yet, so the agent will get only your instruction.';
  const count = `*${p.messages} ${p.messages === 1 ? 'message' : 'messages'}* from ${authorsText(p.authors)}`;
  const first = p.firstLine ? `, starting with:\n> ${escapeReaderText(p.firstLine, 200)}` : '';
  return `${count}${first}`;
}

/** The modal once the thread was read: the preview, and the instruction to edit and submit. */
export function previewModal(at: ModalAt, preview: Extract<ThreadPreview, { ok: true }>): ModalView {
  const blocks: KnownBlock[] = [
    { type: 'section', text: { type: 'mrkdwn', text: previewText(preview) } },
    {
      type: 'context',
      elements: [
        {
          type: 'mrkdwn',
          text: "The whole thread goes to the docs agent with your instruction (a long one keeps its first and latest messages). The job's status will be posted in the thread.",
        },
      ],
    },
    instructionInput(DEFAULT_INSTRUCTION),
  ];
  return modal(at, blocks, { submit: 'Start job' });
}

/** The modal when the bot can't read the thread: why, and how to fix it; nothing to submit. */
export function cannotReadModal(at: ModalAt, reason: Extract<ThreadPreview, { ok: false }>['reason']): ModalView {
  const text =
    reason === 'not_found'
      ? "That message no longer exists, so there's no thread to document."
      : "*I can't read this conversation*: I'm not a member of it.\nInvite me with `/invite @Docs Agent` in the channel, then use the shortcut again. (In a direct message I'm not part of, I can't read anything: use it on a message in a channel I'm in.)";
  return noticeModal(at, text);
}

/** The modal when the person may not start jobs there: the access policy's sentence; nothing to submit. */
export function refusedModal(at: ModalAt, text: string): ModalView {
  return noticeModal(at, text);
}

/** The instruction a follow-up form starts with. */
const DEFAULT_FOLLOW_UP = 'Also update the docs with what was said in this thread since.';

/**
 * The modal when the thread already belongs to a job (a thread belongs to its first job): it
 * offers to send the instruction to that job as a follow-up instead of starting another.
 */
export function followUpModal(at: ModalAt, jobId: string): ModalView {
  const blocks: KnownBlock[] = [
    {
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: `This thread belongs to docs agent job ${jobIdCode(jobId)}, so your instruction goes to that job as a *follow-up* (like a reply in the thread) instead of starting another job here.`,
      },
    },
    instructionInput(DEFAULT_FOLLOW_UP, { label: 'Follow-up for the docs agent' }),
  ];
  return modal(at, blocks, { submit: 'Send follow-up' });
}

/** The modal while a job is being started in the thread: nothing to submit yet. */
export function startingModal(at: ModalAt): ModalView {
  const text =
    'A docs agent job is being started in this thread right now. Reply in the thread in a few seconds to send it a follow-up.';
  return noticeModal(at, text);
}
