/** The access feature: who may use the bot (policy over Slack's user facts) and what it may spend (the agent budget). */
export { AgentBudget, VENDOR_AGENT_CALLS_PER_HOUR, type AgentBudgetOptions } from './budget.js';
export {
  SlackDirectory,
  USER_FACTS_MAX_TTL_MS,
  type DirectoryOptions,
  type DirectorySlack,
  type UserChanges,
} from './directory.js';
export {
  createAccessDirectory,
  RedisUserChanges,
  register as registerAccessListeners,
  type AccessListenerDeps,
} from './listeners.js';
export {
  accessPolicyFromConfig,
  CHECK_FAILED_TEXT,
  decideAccess,
  describeAccess,
  type AccessPolicyConfig,
  type UserFacts,
} from './policy.js';
export { budgetText, createAccess, type AccessDeps } from './service.js';
