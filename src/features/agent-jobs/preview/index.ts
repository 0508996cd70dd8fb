/**
 * Previews of a job's pull request: when a run completes with a pull request on a branch, a step job
 * (`preview-deployment`) asks the docs platform for a preview deployment once, within the
 * organization's 5 a minute, and shows it in the job's thread (one message per job, edited in place
 * by later runs), with the changed pages linked; a failed build offers "Ask the agent to fix the build".
 */
export { PREVIEW_QUEUE, previewJobId } from './queue.js';
