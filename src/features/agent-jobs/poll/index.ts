/**
 * Watching a job to its end: one BullMQ step job per run (`poll-agent-job`) polls the docs API on
 * a schedule learnt from finished jobs' durations, and announces the end once in the job's thread.
 */
export type { PollJobData } from './step.js';
export { createPollQueue, watchAgentJob } from './queue.js';
export { startPollWorker } from './worker.js';
export { DurationHistory } from './durations.js';
