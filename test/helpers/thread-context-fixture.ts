import type { WebClient } from '@slack/web-api';
import { afterEach, beforeEach } from 'vitest';
import { startFakeSlack, type FakeSlack } from '../../sandbox/fake-slack.js';
import { ThreadReader } from '../../src/features/thread-context/read.js';
import type { ThreadContextDeps } from '../../src/features/thread-context/service.js';
import { createLogger, type Logger } from '../../src/platform/logger.js';
import { ConversationDirectory } from '../../src/platform/slack/conversations.js';
import { UserNames } from '../../src/platform/slack/user-names.js';
import { fakeSlackClient } from './fake-slack-client.js';

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

/** The bot token of the fake Slack {@link useThreadContextSlack} starts. */
export const THREAD_FAKE_TOKEN = 'xoxb-sandbox-token';
/** That fake's clock (ms since the epoch), standing still: each message posted there is 1 µs later. */
export const THREAD_FAKE_T0 = Date.UTC(2026, 10, 20, 9, 14);

/** What {@link useThreadContextSlack} hands each test. */
export interface ThreadContextSlack {
  slack: FakeSlack;
  /** A client of {@link THREAD_FAKE_TOKEN} at `slack`. */
  web: WebClient;
  deps: ThreadContextDeps;
}

/**
 * The thread-context tests' set-up, as vitest hooks (call it at the top of a file): `beforeEach`
 * starts a fake Slack (bot token {@link THREAD_FAKE_TOKEN}, its clock standing at
 * {@link THREAD_FAKE_T0}), a client of it and {@link threadContextDeps} over that client with a
 * silent logger and `fenceId`, and hands the three to `use`; `afterEach` closes the fake.
 */
export function useThreadContextSlack(fenceId: () => string, use: (s: ThreadContextSlack) => void): void {
  let slack: FakeSlack | undefined;
  beforeEach(async () => {
    slack = await startFakeSlack({ botToken: THREAD_FAKE_TOKEN, now: () => THREAD_FAKE_T0 });
    const web = fakeSlackClient(slack, THREAD_FAKE_TOKEN);
    use({ slack, web, deps: threadContextDeps(web, createLogger('silent'), fenceId) });
  });
  afterEach(async () => {
    await slack?.close();
    slack = undefined;
  });
}
