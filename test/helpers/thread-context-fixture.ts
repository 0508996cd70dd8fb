import type { WebClient } from '@slack/web-api';
import type { FakeSlack } from '../../sandbox/fake-slack.js';
import { ThreadReader } from '../../src/features/thread-context/read.js';
import type { ThreadContextDeps } from '../../src/features/thread-context/service.js';
import type { Logger } from '../../src/platform/logger.js';
import { ConversationDirectory } from '../../src/platform/slack/conversations.js';
import { UserNames } from '../../src/platform/slack/user-names.js';

/**
 * Thread context's dependencies over `web` (a client at the fake Slack): real user names,
 * conversations and thread reader, a 12,000-character prompt, no channel allow list, and `fenceId`
 * drawing the prompt's fence id.
 */
export function threadContextDeps(web: WebClient, logger: Logger, fenceId: () => string): ThreadContextDeps {
  return {
    slack: web,
    names: new UserNames(web, { logger }),
    logger,
    maxChars: 12_000,
    conversations: new ConversationDirectory({ slack: web }),
    allowedChannels: [],
    reader: new ThreadReader({ slack: web }),
    fenceId,
  };
}

/** A thread in `channel` (default #docs) of the fake Slack: bob's root, then the replies given as [user, text]. */
export function addThread(slack: FakeSlack, root: string, replies: [string, string][], channel = 'C0DOCS') {
  const r = slack.addUserMessage({ channel, user: 'U0BOB', text: root });
  const rs = replies.map(([user, text]) => slack.addUserMessage({ channel, user, text, thread_ts: r.ts }));
  return { root: r, replies: rs };
}
