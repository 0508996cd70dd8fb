/** The access feature: who may use the bot (policy over Slack's user facts) and what it may spend (the agent budget). */
export { AgentBudget, VENDOR_AGENT_CALLS_PER_HOUR, type AgentBudgetOptions } from './budget.js';
export { SlackDirectory, type DirectoryOptions, type DirectorySlack } from './directory.js';
export { CHECK_FAILED_TEXT, decideAccess, describeAccess, type AccessPolicyConfig, type UserFacts } from './policy.js';
export { budgetText, createAccess, type AccessDeps } from './service.js';
