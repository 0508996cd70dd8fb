import type { WebClient } from '@slack/web-api';
import { vi } from 'vitest';
import type { StartJobDeps } from '../../src/features/agent-jobs/start/start.js';
import { OPEN_GATE } from '../../src/platform/access.js';
import { createLogger } from '../../src/platform/logger.js';
import { TEST_SIGNER } from './signer.js';

/**
 * A job start's dependencies as hand-written fakes: a store, poll queue and status presenter of
 * spies, a Slack whose chat.postMessage answers ts `1700000100.000200` and whose history and replies
 * are empty, the open gate, a silent logger, the first poll 10 s on, the clock at 1_700_000_000_000
 * ms. `over` gives the docs API and the channel's project, and replaces any of the rest.
 */
export function fakeStartJobDeps(
  over: Pick<StartJobDeps, 'docsApi' | 'projectFor'> & Partial<StartJobDeps>,
): StartJobDeps {
  return {
    signer: TEST_SIGNER,
    store: {
      create: vi.fn(async () => undefined),
      markThreadsPending: vi.fn(async () => undefined),
      clearPendingThreads: vi.fn(async () => undefined),
      saveRestart: vi.fn(async () => undefined),
    },
    slack: {
      chat: {
        postMessage: vi.fn<WebClient['chat']['postMessage']>(async () => ({ ok: true, ts: '1700000100.000200' })),
      },
      conversations: {
        history: vi.fn<WebClient['conversations']['history']>(async () => ({ ok: true, messages: [] })),
        replies: vi.fn<WebClient['conversations']['replies']>(async () => ({ ok: true, messages: [] })),
      },
    },
    pollQueue: { add: vi.fn(async () => ({}) as never) },
    status: { show: vi.fn(async () => ({})), settleUnrecorded: vi.fn(async () => ({})) },
    access: OPEN_GATE,
    logger: createLogger('silent'),
    firstPollDelayMs: 10_000,
    now: () => 1_700_000_000_000,
    ...over,
  };
}
