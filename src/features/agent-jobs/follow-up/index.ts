/**
 * Continuing a job: a follow-up from its thread, `/docs-reply` or "Document this thread" is sent
 * to the agent once (one at a time per job, across replicas) after the follow-up policy, access
 * and the context's readers are checked, and a new cycle is watched.
 */
export { continueAgentJob, FollowUpUnrecordedError, type ContinueJobDeps } from './continue.js';
export { NOT_A_READER_TEXT, READERS_CHECK_FAILED_TEXT, UNCERTAIN_FOLLOWUP_TEXT, unknownJobText } from './refusals.js';
export { withJobLock } from './job-lock.js';
