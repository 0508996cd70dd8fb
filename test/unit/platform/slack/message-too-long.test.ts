import { describe, expect, it, vi } from 'vitest';
import { handleIncomingMessage, type IncomingMessage } from '../../../../src/features/agent-jobs/messages.js';
import { promptTooLongText } from '../../../../src/platform/access.js';
import { createLogger } from '../../../../src/platform/logger.js';

/**
 * A message the listener cut to AGENT_PROMPT_MAX_CHARS (it carries `textChars`, its length as
 * typed) is refused as too long, never sent to the agent truncated.
 */
describe('a message longer than AGENT_PROMPT_MAX_CHARS', () => {
  it("a reply in a job's thread: the author is told its length and the limit; nothing reaches the job", async () => {
    const postEphemeral = vi.fn(async (_args: unknown) => ({ ok: true }));
    const run = vi.fn(async () => undefined);
    const deps = {
      store: { findByThread: async () => 'job_1' },
      followups: { run },
      slack: { chat: { postEphemeral } },
      logger: createLogger('silent'),
      ignorePrefix: '!aside',
    };
    const msg: IncomingMessage = {
      teamId: 'T0SANDBOX',
      channel: 'C0DOCS',
      user: 'U0ALICE',
      ts: '1700000001.000100',
      thread_ts: '1700000000.000100',
      text: 'x'.repeat(12_000),
      textChars: 40_000,
      viaMention: false,
    };
    const steps = { progress: {}, save: async () => undefined, finalAttempt: false };
    await handleIncomingMessage(deps as never, msg, 'U0DOCSBOT', steps as never, { key: 'k', receivedAt: 0 });
    expect(postEphemeral).toHaveBeenCalledExactlyOnceWith({
      channel: 'C0DOCS',
      user: 'U0ALICE',
      thread_ts: '1700000000.000100',
      text: promptTooLongText(40_000, 12_000),
    });
    expect(run).not.toHaveBeenCalled();
  });
});
