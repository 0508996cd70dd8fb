import type { ModalView } from '@slack/types';
import { z } from 'zod';
import { truncate } from '../../platform/slack/limits.js';
import type { ValueSigner } from '../../platform/slack/signed-value.js';
import { PURPOSE } from './blocks.js';
import type { AnswerRecord } from './store.js';

/**
 * "Document this": the modal opened from an answer the docs could not give, prefilled with an
 * instruction built from the question and its conversation (editable); submitting starts an agent
 * job in the answer's thread through agent-jobs' `submitJobStartForm` (access, budget, `project=`,
 * status, announcement, exactly once).
 */

/** `callback_id` of the modal. */
export const DOCUMENT_CALLBACK_ID = 'ask_document';
/** block_id and action_id of the instruction input. */
export const DOCUMENT_BLOCK = 'instruction';
export const DOCUMENT_ACTION = 'instruction';
/** Slack: plain_text_input `max_length` ≤ 3000, and `initial_value` within it. */
export const INSTRUCTION_MAX = 3_000;

/** Where the job goes: the answer's conversation and thread (in the modal's signed `private_metadata`). */
export interface DocumentTarget {
  channel: string;
  threadTs: string;
}

const targetSchema = z.object({ c: z.string().regex(/^[A-Z0-9]{2,40}$/), t: z.string().regex(/^\d{1,12}\.\d{1,8}$/) });

/**
 * The instruction the modal starts with: the question, the earlier questions and what the assistant
 * said, and what to do.
 */
export function documentInstruction(rec: AnswerRecord): string {
  const lines = [
    `Add to the docs what they need to answer this question from Slack, which they don't answer yet:`,
    `"${rec.question}"`,
  ];
  if (rec.earlier.length)
    lines.push('', 'Earlier questions in the same conversation:', ...rec.earlier.map((q) => `- ${q}`));
  if (rec.answer.trim()) lines.push('', `The docs assistant answered: "${rec.answer.trim()}"`);
  return truncate(lines.join('\n'), INSTRUCTION_MAX);
}

/** The modal (views.open). Its `private_metadata` is the target, signed. */
export function documentModal(rec: AnswerRecord, signer: ValueSigner): ModalView {
  const target = JSON.stringify({ c: rec.channel, t: rec.threadTs });
  return {
    type: 'modal',
    callback_id: DOCUMENT_CALLBACK_ID,
    private_metadata: signer.sign(PURPOSE.modal, target),
    title: { type: 'plain_text', text: 'Document this' },
    submit: { type: 'plain_text', text: 'Start job' },
    close: { type: 'plain_text', text: 'Cancel' },
    blocks: [
      {
        type: 'section',
        text: {
          type: 'mrkdwn',
          text:
            'The docs agent will change the docs so that they answer this question, ' +
            "working in the answer's thread, and open a pull request.",
        },
      },
      {
        type: 'input',
        block_id: DOCUMENT_BLOCK,
        label: { type: 'plain_text', text: 'Instruction for the docs agent' },
        hint: { type: 'plain_text', text: 'Edit it as you like: this is exactly what the agent will be asked to do.' },
        element: {
          type: 'plain_text_input',
          action_id: DOCUMENT_ACTION,
          multiline: true,
          max_length: INSTRUCTION_MAX,
          initial_value: documentInstruction(rec),
        },
      },
    ],
  };
}

/** The target of a submitted modal, when the bot signed its `private_metadata`; else why not. */
export function openDocumentTarget(
  signer: ValueSigner,
  raw: unknown,
): { ok: true; target: DocumentTarget } | { ok: false; reason: 'unsigned' | 'tampered' } {
  const opened = signer.open(PURPOSE.modal, raw);
  if (!opened.ok) return opened;
  try {
    const t = targetSchema.parse(JSON.parse(opened.payload));
    return { ok: true, target: { channel: t.c, threadTs: t.t } };
  } catch {
    return { ok: false, reason: 'tampered' };
  }
}
