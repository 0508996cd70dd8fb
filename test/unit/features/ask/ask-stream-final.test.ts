import { describe, expect, it, vi } from 'vitest';
import {
  AnswerWriter,
  FINAL_EDIT_WAIT_MS,
  type StreamSlack,
  type WriterDeps,
} from '../../../../src/features/ask/answer/stream.js';
import { createLogger } from '../../../../src/platform/logger.js';
import { memorySteps } from '../../../../src/platform/steps.js';
import { answerTarget } from '../../../helpers/answers.js';

/**
 * The posted fallback's final edit: how long it waits (the longer of the edit budget's wait and
 * Slack's Retry-After, at most FINAL_EDIT_WAIT_MS), what it does with a Retry-After longer than
 * that, and shutdown ending the wait. A clock the test moves; the writer's sleep moves it too.
 */

const rateLimited = () =>
  Object.assign(new Error('A rate limit was exceeded (url: chat.update, retry-after: 30)'), {
    code: 'slack_webapi_rate_limited_error',
    retryAfter: 30,
  });

/** A writer whose stream start is refused (so it posts and edits); chat.update answers as `update` says. */
function fallback(o: {
  update: (n: number) => void;
  budget?: WriterDeps['budget'];
  real?: boolean;
  signal?: AbortSignal;
}) {
  let now = 1_000_000;
  const updates: number[] = [];
  const refused = Object.assign(new Error('channel_type_not_supported'), {
    code: 'slack_webapi_platform_error',
    data: { ok: false, error: 'channel_type_not_supported' },
  });
  const slack = {
    chat: {
      startStream: vi.fn(async () => Promise.reject(refused)),
      postMessage: vi.fn(async () => ({ ok: true, ts: '3.000001' })),
      update: vi.fn(async () => {
        updates.push(now);
        o.update(updates.length);
        return { ok: true };
      }),
    },
    conversations: { history: vi.fn(async () => ({ ok: true, messages: [] })), replies: vi.fn() },
  } as unknown as StreamSlack;
  const sleep = vi.fn(async (ms: number) => void (now += ms));
  const steps = memorySteps();
  const deps: WriterDeps = {
    slack,
    budget: o.budget ?? { take: async () => ({ ok: true }) },
    logger: createLogger('silent'),
    now: () => now,
    ...(o.real ? {} : { sleep }),
    ...(o.signal ? { signal: o.signal } : {}),
  };
  const target = answerTarget();
  const w = new AnswerWriter(deps, target, steps);
  return { w, updates, sleep, steps, advance: (ms: number) => void (now += ms) };
}

/** 500 chunks, `msEach` apart. */
async function write(f: ReturnType<typeof fallback>, msEach: number): Promise<void> {
  for (let i = 0; i < 500; i++) {
    f.advance(msEach);
    await f.w.append(`w${i} `);
  }
}

describe("the posted answer's final edit", () => {
  it(`waits at most ${FINAL_EDIT_WAIT_MS / 1000} s in all when both Retry-After and a spent budget hold it`, async () => {
    let spent = false;
    const f = fallback({
      update: (n) => {
        if (n === 1) throw rateLimited();
      },
      budget: { take: async () => (spent ? { ok: false, retryMs: 60_000 } : { ok: true }) },
    });
    await write(f, 40); // 20 s: 11.5 s of Retry-After left
    spent = true;
    await f.w.finish({ blocks: [] });
    expect(f.sleep.mock.calls.map((c) => c[0])).toEqual([FINAL_EDIT_WAIT_MS]);
    expect(f.updates).toHaveLength(2);
  });

  it('a Retry-After longer than its wait: no chat.update now, the final edit saved for the intake’s retry', async () => {
    const f = fallback({
      update: (n) => {
        if (n === 1) throw rateLimited();
      },
    });
    await write(f, 20); // 10 s: 21.5 s of Retry-After left
    await expect(f.w.finish({ blocks: [{ type: 'divider' }] })).rejects.toThrow(/rate limited/);
    expect(f.updates).toHaveLength(1);
    expect(f.sleep).not.toHaveBeenCalled();
    const saved = f.steps.progress['k:answer:final'] as { kind: string; text: string };
    expect(saved.kind).toBe('update');
    expect(saved.text).toContain('w499');
  });

  it('shutdown ends the wait: the final edit is made at once', async () => {
    const shutdown = new AbortController();
    const f = fallback({
      update: () => undefined,
      budget: { take: async () => ({ ok: false, retryMs: 60_000 }) },
      real: true,
      signal: shutdown.signal,
    });
    await write(f, 40);
    const t0 = performance.now();
    const finished = f.w.finish({ blocks: [] });
    setImmediate(() => shutdown.abort());
    await finished;
    expect(performance.now() - t0).toBeLessThan(1_000);
    expect(f.updates).toHaveLength(1);
  });
});
