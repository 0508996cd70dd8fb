/**
 * The status message: a job's one message in its channel, edited in place as the job moves, and
 * the state reaction on its thread root. {@link StatusPresenter} is their one writer: throttled
 * per message across replicas, within the workspace's edit budget, never waiting.
 */
export { StatusPresenter, type StatusChange, type StatusTarget } from './presenter.js';
export { ACTION_OPEN_PR, buildStatusMessage, prLinkActions } from './blocks.js';
export { EditBudget } from './edit-budget.js';
