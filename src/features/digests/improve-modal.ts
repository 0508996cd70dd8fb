import type { ModalView } from '@slack/types';
import { z } from 'zod';
import { truncate } from '../../platform/slack/limits.js';
import { fitJson, SAFE_DOCS_PATH, type ImproveValue } from './blocks.js';
import { improveInstruction } from './content.js';
import { codeSafe, formatCount, middleTruncate } from '../visitors/index.js';

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

const metadataSchema = z.object({ c: z.string().min(1).max(40), t: z.string().regex(/^\d{1,12}\.\d{1,8}$/), p: z.string().max(1500).regex(SAFE_DOCS_PATH) });

/** Decodes a modal's `private_metadata`; undefined when malformed. */
export function decodeImproveMetadata(raw: string | undefined): ImproveMetadata | undefined {
  try {
    const m = metadataSchema.parse(JSON.parse(raw ?? ''));
    return { channel: m.c, threadTs: m.t, path: m.p };
  } catch {
    return undefined;
  }
}

/**
 * Builds the modal for views.open.
 *
 * @param page - the falling page from the button's value.
 * @param meta - channel and digest ts (from the block_actions container).
 */
export function buildImproveModal(page: ImproveValue, meta: ImproveMetadata): ModalView {
  const instruction = truncate(
    improveInstruction({ path: page.path, fellPct: page.fellPct, current: page.current, previous: page.previous, rangeLabel: page.rangeLabel }),
    INSTRUCTION_MAX,
  );
  const shown = `\`${codeSafe(middleTruncate(page.path, 80))}\``;
  return {
    type: 'modal',
    callback_id: IMPROVE_CALLBACK_ID,
    // Slack: private_metadata ≤ 3000 chars.
    private_metadata: fitJson(meta.path, 1500, 3000, (p) => ({ c: meta.channel, t: meta.threadTs, p })),
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
