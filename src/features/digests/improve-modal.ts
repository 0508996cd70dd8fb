import type { ModalView } from '@slack/types';
import { z } from 'zod';
import { truncate } from '../../platform/slack/limits.js';
import { channelId, messageTs } from '../../platform/slack/payloads.js';
import { SIGNATURE_OVERHEAD, type ValueSigner } from '../../platform/slack/signed-value.js';
import { fitJson, SAFE_DOCS_PATH, type ImproveValue } from './improve-value.js';
import { improveInstruction } from './content.js';
import { formatCount, inlineReaderPath } from '../visitors/index.js';

/**
 * The "Improve with agent" modal opened from a falling page of the digest: an editable
 * instruction pre-filled from the page's numbers; submitting starts a `/docs-edit` agent job in
 * the digest's thread.
 */

/** `callback_id` of the modal (its view_submission is registered in src/listeners/visitors). */
export const IMPROVE_CALLBACK_ID = 'visitors_improve';
/** block_id of the instruction input. */
export const INSTRUCTION_BLOCK = 'instruction';
/** action_id of the instruction input. */
export const INSTRUCTION_ACTION = 'instruction';
/** Slack: plain_text_input `max_length` ≤ 3000, and initial_value within it. */
export const INSTRUCTION_MAX = 3000;

/** What the modal remembers in `private_metadata` (Slack: ≤ 3000 chars): where to start the job. */
export interface ImproveMetadata {
  channel: string;
  /** ts of the digest message: the job's status message goes in its thread. */
  threadTs: string;
  path: string;
}

const metadataSchema = z.object({ c: channelId, t: messageTs, p: z.string().max(1500).regex(SAFE_DOCS_PATH) });

/** What the modal's `private_metadata` is signed for (src/platform/slack/signed-value.ts). */
export const IMPROVE_MODAL_PURPOSE = 'digests.improve-modal';

/**
 * Decodes a modal's `private_metadata`: where to start the job, when the bot signed it and it has
 * Slack's id shapes; else why not (`unsigned`/`tampered`: not the bot's; `malformed`: unreadable).
 */
export function decodeImproveMetadata(
  raw: string | undefined,
  signer: Pick<ValueSigner, 'open'>,
): { ok: true; meta: ImproveMetadata } | { ok: false; reason: 'unsigned' | 'tampered' | 'malformed' } {
  const opened = signer.open(IMPROVE_MODAL_PURPOSE, raw);
  if (!opened.ok) return opened;
  try {
    const m = metadataSchema.parse(JSON.parse(opened.payload));
    return { ok: true, meta: { channel: m.c, threadTs: m.t, path: m.p } };
  } catch {
    return { ok: false, reason: 'malformed' };
  }
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
  const instruction = truncate(
    improveInstruction({
      path: page.path,
      fellPct: page.fellPct,
      current: page.current,
      previous: page.previous,
      rangeLabel: page.rangeLabel,
    }),
    INSTRUCTION_MAX,
  );
  const shown = inlineReaderPath(page.path, 80);
  // Slack: private_metadata ≤ 3000 chars, the signature included.
  const where = (p: string) => ({ c: meta.channel, t: meta.threadTs, p });
  const metadata = fitJson(meta.path, 1500, 3000 - SIGNATURE_OVERHEAD, where);
  return {
    type: 'modal',
    callback_id: IMPROVE_CALLBACK_ID,
    private_metadata: signer.sign(IMPROVE_MODAL_PURPOSE, metadata),
    title: { type: 'plain_text', text: 'Improve with agent' },
    submit: { type: 'plain_text', text: 'Start job' },
    close: { type: 'plain_text', text: 'Cancel' },
    blocks: [
      {
        type: 'section',
        text: {
          type: 'mrkdwn',
          text:
            `${shown} lost ${page.fellPct}% of its human readers (${formatCount(page.previous)} → ${formatCount(page.current)}, ${page.rangeLabel}).\n` +
            "The docs agent will work on it in the digest's thread and open a pull request.",
        },
      },
      {
        type: 'input',
        block_id: INSTRUCTION_BLOCK,
        label: { type: 'plain_text', text: 'Instruction for the docs agent' },
        hint: { type: 'plain_text', text: 'Edit it as you like: this is exactly what the agent will be asked to do.' },
        element: {
          type: 'plain_text_input',
          action_id: INSTRUCTION_ACTION,
          multiline: true,
          max_length: INSTRUCTION_MAX,
          initial_value: instruction,
        },
      },
    ],
  };
}
