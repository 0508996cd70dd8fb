import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import type { Deps } from '../../deps.js';
import { ACTION_DIGEST_RETRY, ACTION_IMPROVE_PREFIX } from '../../visitors/digest-blocks.js';
import { IMPROVE_CALLBACK_ID } from '../../visitors/improve-modal.js';
import { ACTION_NEXT, ACTION_PREVIOUS } from '../../visitors/report-blocks.js';
import { ACTION_RETRY } from '../../visitors/report-service.js';
import { digestRetryAction, improveAction, improveSubmission } from './digest-actions.js';
import { docsVisitorsCommand } from './docs-visitors.js';
import { pageAction, retryAction } from './report-actions.js';

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Registers `/docs-visitors`, its paging/retry buttons and the "Improve with agent" modal. */
export function register(app: App, deps: Deps): void {
  app.command('/docs-visitors', docsVisitorsCommand(deps));
  app.action<BlockAction<ButtonAction>>(ACTION_PREVIOUS, pageAction(deps));
  app.action<BlockAction<ButtonAction>>(ACTION_NEXT, pageAction(deps));
  app.action<BlockAction<ButtonAction>>(ACTION_RETRY, retryAction(deps));
  app.action<BlockAction<ButtonAction>>(new RegExp(`^${escapeRegExp(ACTION_IMPROVE_PREFIX)}\\d+$`), improveAction(deps));
  app.action<BlockAction<ButtonAction>>(ACTION_DIGEST_RETRY, digestRetryAction(deps));
  app.view({ type: 'view_submission', callback_id: IMPROVE_CALLBACK_ID }, improveSubmission(deps));
}
