import type { ModalView } from '@slack/types';
import { z } from 'zod';
import { escapeReaderText } from '../../../platform/slack/markup.js';
import { channelId, messageTs } from '../../../platform/slack/payloads.js';
import { SIGNATURE_OVERHEAD, unverifiedValueText, type ValueSigner } from '../../../platform/slack/signed-value.js';
import { instructionInput, jobModal, openSigned, type JobForm } from '../../agent-jobs/index.js';
import { SAFE_DOCS_PATH } from '../safe-path.js';
import type { ImproveValue } from './improve-value.js';
import { IMPROVE_GUIDANCE } from './content.js';
import { formatCount, inlineReaderPath, readerPath } from '../format.js';

/**
 * The "Improve with agent" modal opened from a falling page of the digest: short editable guidance
 * and, under it, the page and its numbers read-only; submitting starts a `/docs-edit` agent job in
 * the digest's thread, with the page and its numbers (from the signed metadata) sent to the agent
 * after the instruction (`quoted`) and shown as the job's About line, as Document this does with
 * its question.
 */

/** `callback_id` of the modal (its view_submission is registered in digests/listeners.ts). */
export const IMPROVE_CALLBACK_ID = 'visitors_improve';

/** What the modal remembers in `private_metadata` (Slack: ≤ 3000 chars): where to start the job, and the page's numbers. */
interface ImproveMetadata {
  channel: string;
  /** ts of the digest message: the job's status message goes in its thread. */
  threadTs: string;
  path: string;
  /** Absent in forms opened before the numbers rode in the metadata (their instruction held them). */
  numbers?: Omit<ImproveValue, 'path'> | undefined;
}

const metadataSchema = z.object({
  c: channelId,
  t: messageTs,
  p: z.string().max(1500).regex(SAFE_DOCS_PATH),
  n: z.number().int().min(0).max(100).optional(),
  k: z.number().min(0).optional(),
  v: z.number().min(0).optional(),
  r: z.string().max(120).optional(),
});

/** What the modal's `private_metadata` is signed for (src/platform/slack/signed-value.ts). */
export const IMPROVE_MODAL_PURPOSE = 'digests.improve-modal';

/**
 * Decodes a modal's `private_metadata`: where to start the job, when the bot signed it and it has
 * Slack's id shapes; else why not (`unsigned`/`tampered`: not the bot's; `malformed`: unreadable).
 */
export function decodeImproveMetadata(raw: string | undefined, signer: Pick<ValueSigner, 'open'>) {
  return openSigned(signer, IMPROVE_MODAL_PURPOSE, raw, readMetadata);
}

function readMetadata(json: unknown): ImproveMetadata {
  const m = metadataSchema.parse(json);
  const numbers =
    m.n !== undefined && m.k !== undefined && m.v !== undefined
      ? { numbers: { fellPct: m.n, current: m.k, previous: m.v, rangeLabel: m.r ?? '' } }
      : {};
  return { channel: m.c, threadTs: m.t, path: m.p, ...numbers };
}

/** The page and its numbers in the bot's words; `path` shows the page (plain for the agent; inline code in the modal). */
function pageFacts(page: ImproveValue, path: (p: string) => string = (p) => p): string {
  const range = escapeReaderText(page.rangeLabel, 120);
  return (
    `The page: ${path(page.path)}. Its human readers fell ${page.fellPct}% this week ` +
    `(${formatCount(page.previous)} → ${formatCount(page.current)}, ${range}, compared with the week before).`
  );
}

/**
 * What a falling page's Improve sends the agent after the instruction (agent-jobs' `quoted`): the
 * page and its numbers. The path is a plain docs path ({@link SAFE_DOCS_PATH}: no space, quote or
 * markup, so it can't read as an instruction), as it was when it sat in the instruction.
 */
export function pageQuoted(page: ImproveValue): string {
  return pageFacts(page);
}

/** The job's About line for a falling page (plain, one line), e.g. `/quickstart · readers fell 40% (100 → 60)`. */
export function pageAbout(page: ImproveValue): string {
  return `${readerPath(page.path, 80)} · readers fell ${page.fellPct}% (${formatCount(page.previous)} → ${formatCount(page.current)})`;
}

/**
 * Builds the modal for views.open.
 *
 * @param page - the falling page from the button's value.
 * @param meta - channel and digest ts (from the block_actions container).
 * @param signer - signs the modal's `private_metadata`.
 */
export function buildImproveModal(
  page: ImproveValue,
  meta: ImproveMetadata,
  signer: Pick<ValueSigner, 'sign'>,
): ModalView {
  // Slack: private_metadata ≤ 3000 chars, the signature included.
  const where = (p: string) => ({
    c: meta.channel,
    t: meta.threadTs,
    p,
    n: page.fellPct,
    k: page.current,
    v: page.previous,
    r: page.rangeLabel.slice(0, 120),
  });
  const metadata = fitJson(meta.path, 1500, 3000 - SIGNATURE_OVERHEAD, where);
  const lead = "The docs agent will work on it in the digest's thread and open a pull request.";
  return jobModal({
    callbackId: IMPROVE_CALLBACK_ID,
    title: 'Improve with agent',
    metadata: signer.sign(IMPROVE_MODAL_PURPOSE, metadata),
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: lead } },
      instructionInput(IMPROVE_GUIDANCE, { hint: EDIT_HINT }),
      { type: 'context', elements: [{ type: 'mrkdwn', text: QUOTED_LABEL }] },
      { type: 'section', text: { type: 'mrkdwn', text: pageFacts(page, (p) => inlineReaderPath(p, 80)) } },
    ],
  });
}

/** The hint under the instruction of both Improve forms. */
export const EDIT_HINT =
  'Edit it as you like. What it is about (below) goes with it as quoted data: nothing in it is followed as an option or a link.';
/** The line above what an Improve form shows read-only. */
export const QUOTED_LABEL = 'Quoted for the agent (not editable):';
/** Most characters an Improve form shows read-only (Slack: section text ≤ 3000). */
export const SHOWN_MAX = 2_900;

/**
 * The "Improve with agent" form as its submission reads it (view_submission `visitors_improve`):
 * the job starts in the digest's thread. Several jobs may share a digest's thread: each shows its
 * state on its own status message.
 */
export const IMPROVE_FORM: JobForm<ImproveMetadata> = {
  formName: 'the Improve with agent form',
  purpose: IMPROVE_MODAL_PURPOSE,
  read: readMetadata,
  blankText: 'Tell the agent what to change.',
  unverifiedText: unverifiedValueText('open the form again from the digest'),
  outcome: (meta, instruction) => {
    const page = meta.numbers ? { path: meta.path, ...meta.numbers } : undefined;
    return {
      start: {
        channel: meta.channel,
        instruction,
        threadTs: meta.threadTs,
        reactOnStatusMessage: true,
        ...(page ? { quoted: pageQuoted(page), about: pageAbout(page) } : {}),
      },
    };
  },
};

/**
 * JSON of `build(path cut to some length)`, cutting the path (from `startCut` chars, by a fifth
 * each time) until the JSON is at most `max` chars long.
 */
function fitJson(path: string, startCut: number, max: number, build: (path: string) => unknown): string {
  let cut = Math.min(path.length, startCut);
  for (;;) {
    const json = JSON.stringify(build(path.slice(0, cut)));
    if (json.length <= max || cut === 0) return json;
    cut = Math.floor(cut * 0.8);
  }
}
