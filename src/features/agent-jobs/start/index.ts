/**
 * Starting a job: the one door every new job goes through (access and the agent budget, the
 * prompt with its Slack context, `project=`), the status message posted first, the job created
 * once, recorded and watched; and the notice with "Start it again" when its fate is unknown.
 */
export {
  CANNOT_POST_TEXT,
  JOB_CREATE_CONCURRENCY,
  startAgentJob,
  type StartJobDeps,
  type StartJobRequest,
} from './start.js';
export { StatusChangeDeferredError } from './failures.js';
export { startWithContext, type ContextStartDeps, type PromptContext } from './context.js';
export { ACTION_RESTART, RESTART_PURPOSE } from './blocks.js';
export { takeProjectOption } from './project-option.js';
export { projectsNow } from './request.js';
