import type { App } from '@slack/bolt';
import type { Deps } from '../../deps.js';

/** Registers `/docs-visitors`, its paging/retry buttons and the "Improve with agent" modal. */
export function register(_app: App, _deps: Deps): void {
  // filled in by the visitors feature
}
