/**
 * The answer writer: an admitted question's answer, written once in its thread. The rest of the
 * feature queues the answer (`enqueueAnswer`) and starts the worker that writes it
 * (`startAnswerWorker`); the worker runs {@link writeAnswer}, the writer's one entry point, with the
 * job's saved steps. Inside: `write.ts` (asking the assistant, the answer's end and its record),
 * `safe-text.ts` (the assistant's events read into the writer, made safe with
 * `safe-markdown.ts`), `stream.ts` (the one writer of the answer message), `final.ts` (the answer's
 * step keys, its final write, and a retry's end of an answer a crash cut), `types.ts` (what they
 * share: the target, the writer's deps), `worker.ts` (the answers' queue).
 */
export { writeAnswer, type AnswerDeps } from './write.js';
export type { StreamSlack } from './types.js';
export {
  answerJob,
  createAnswerQueue,
  enqueueAnswer,
  releaseSlot,
  startAnswerWorker,
  type AnswerJobData,
  type AnswerJobDeps,
} from './worker.js';
