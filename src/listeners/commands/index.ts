import type { App } from '@slack/bolt';
import type { Deps } from '../../deps.js';
import { docsEditCommand } from './docs-edit.js';
import { docsReplyCommand } from './docs-reply.js';

/** Registers the slash commands (declared in manifest.yml). */
export function register(app: App, deps: Deps): void {
  app.command('/docs-edit', docsEditCommand(deps));
  app.command('/docs-reply', docsReplyCommand(deps));
}
