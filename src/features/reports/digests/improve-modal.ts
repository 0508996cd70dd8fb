import type { ModalView } from '@slack/types';
import { z } from 'zod';
import { truncate } from '../../../platform/slack/limits.js';
import { channelId, messageTs } from '../../../platform/slack/payloads.js';
import { SIGNATURE_OVERHEAD, unverifiedValueText, type ValueSigner } from '../../../platform/slack/signed-value.js';
import { INSTRUCTION_MAX, instructionInput, jobModal, openSigned, type JobForm } from '../../agent-jobs/index.js';
import { SAFE_DOCS_PATH } from '../safe-path.js';
import type { ImproveValue } from './improve-value.js';
import { improveInstruction } from './content.js';
import { formatCount, inlineReaderPath } from '../format.js';

/**
 * The "Improve with agent" modal opened from a falling page of the digest: an editable
 * instruction pre-filled from the page's numbers; submitting starts a `/docs-edit` agent job in
 * the digest's thread.
 */

/** `callback_id` of the modal (its view_submission is registered in digests/listeners.ts). */
export const IMPROVE_CALLBACK_ID = 'visitors_improve';

/** What the modal remembers in `private_metadata` (Slack: ≤ 3000 chars): where to start the job. */
interface ImproveMetadata {
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
export function decodeImproveMetadata(raw: string | undefined, signer: Pick<ValueSigner, 'open'>) {
  return openSigned(signer, IMPROVE_MODAL_PURPOSE, raw, readMetadata);
}

function readMetadata(json: unknown): ImproveMetadata {
  const m = metadataSchema.parse(json);
  return { channel: m.c, threadTs: m.t, path: m.p };
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
  const text =
    `${shown} lost ${page.fellPct}% of its human readers (${formatCount(page.previous)} → ${formatCount(page.current)}, ${page.rangeLabel}).\n` +
    "The docs agent will work on it in the digest's thread and open a pull request.";
  return jobModal({
    callbackId: IMPROVE_CALLBACK_ID,
    title: 'Improve with agent',
    metadata: signer.sign(IMPROVE_MODAL_PURPOSE, metadata),
    blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }, instructionInput(instruction, { hint: EDIT_HINT })],
  });
}

/** The hint under the instruction of both Improve forms. */
export const EDIT_HINT = 'Edit it as you like: this is exactly what the agent will be asked to do.';

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
  outcome: (meta, instruction) => ({
    start: { channel: meta.channel, instruction, threadTs: meta.threadTs, reactOnStatusMessage: true },
  }),
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
