/**
 * The status message: a job's one message in its channel, edited in place as the job moves, and
 * the state reaction on its thread root. {@link StatusPresenter} is their one writer: throttled
 * per message across replicas, within the workspace's edit budget, never waiting.
 */
export {
  RENDER_RETRY_MAX_MS,
  RENDER_RETRY_MS,
  STATE_REACTION,
  StatusPresenter,
  type ShowOutcome,
  type StatusChange,
  type StatusPresenterOptions,
  type StatusTarget,
} from './presenter.js';
export { ACTION_OPEN_PR, buildStatusMessage, prLinkActions, slackDate, sourceText, type StatusView } from './blocks.js';
export { EditBudget, type BudgetGrant, type EditBudgetOptions } from './edit-budget.js';
