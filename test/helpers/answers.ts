import type { Queue } from 'bullmq';
import { answerJob, type AnswerJobData, type AnswerJobDeps } from '../../src/features/ask/answer/index.js';
import type { AnswerTarget } from '../../src/features/ask/answer/types.js';
import type { AnswerRecord } from '../../src/features/ask/store.js';
import { memorySteps } from '../../src/platform/steps.js';

/**
 * An answers' queue whose `add` writes the answer at once, as the answer worker does (its
 * processor, `answerJob`: the answer, then `tell` for what it could not show, then the asker's slot
 * freed), on steps kept in memory (one try): `askQuestion`'s answer is in Slack when it returns.
 */
export function answersWrittenAtOnce(
  deps: AnswerJobDeps,
  tell: (text: string) => Promise<void>,
): Pick<Queue<AnswerJobData>, 'add'> {
  const add = async (_name: string, data: AnswerJobData) => {
    await answerJob(deps, data, memorySteps(), tell);
    return undefined;
  };
  return { add: add as unknown as Queue<AnswerJobData>['add'] };
}

/** The answer the writer tests stream: to U1 of T1 in C1, thread `1.000001`, keyed `k:answer`, since 0. */
export function answerTarget(): AnswerTarget {
  return {
    teamId: 'T1',
    channel: 'C1',
    threadTs: '1.000001',
    recipientUserId: 'U1',
    key: 'k:answer',
    since: 0,
  };
}

/**
 * A stored answer: U0ALICE's question in thread `1700000000.000100` of C0DOCS (team T1), answer id
 * `0123456789abcdef`, no earlier questions; `over` gives the question, the answer and whether it was
 * unanswered, and replaces any of the rest.
 */
export function answerRecord(
  over: Pick<AnswerRecord, 'question' | 'answer' | 'unanswered'> & Partial<AnswerRecord>,
): AnswerRecord {
  return {
    answerId: '0123456789abcdef',
    teamId: 'T1',
    channel: 'C0DOCS',
    threadTs: '1700000000.000100',
    asker: 'U0ALICE',
    earlier: [],
    ...over,
  };
}
