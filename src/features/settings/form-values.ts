/** The settings modal's answers, read from a view_submission's `state.values` (untrusted: checked by the caller). */
import {
  ANSWER_ALL_ACTION,
  ANSWER_ALL_BLOCK,
  FOLLOWUPS_ACTION,
  FOLLOWUPS_BLOCK,
  MENTIONS_ACTION,
  MENTIONS_BLOCK,
  PROJECT_ACTION,
  PROJECT_BLOCK,
} from './blocks.js';

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
