import { describe, expect, it, vi } from 'vitest';
import {
  ANSWER_MAX_CHARS,
  AnswerWriter,
  FALLBACK_EDIT_MS,
  FALLBACK_MAX_EDITS,
  MIN_APPEND_CHARS,
  type StreamSlack,
  type WriterDeps,
} from '../../../../src/features/ask/answer/stream.js';
import { endCutAnswer, FIND_STREAMED_MAX_PAGES } from '../../../../src/features/ask/answer/final.js';
import { SuggestionsFilter } from '../../../../src/features/ask/answer/safe-text.js';
import { createLogger } from '../../../../src/platform/logger.js';
import { memorySteps } from '../../../../src/platform/steps.js';
import { CUT_OFF_TEXT } from '../../../../src/features/ask/blocks.js';
import { answerTarget } from '../../../helpers/answers.js';
import { arrayLogger } from '../../../helpers/logs.js';

/**
 * A Slack stand-in that records the calls of the writer (the fake Slack's rules are tested against
 * it in integration).
 */
function slackStub(opts: { refuseStart?: string; refuseStop?: string } = {}) {
  const calls: Array<{ method: string; args: Record<string, unknown> }> = [];
  const record = (method: string, result: Record<string, unknown> = {}, fail?: string) =>
    vi.fn(async (args: Record<string, unknown>) => {
      calls.push({ method, args });
      if (fail)
        throw Object.assign(new Error(fail), { code: 'slack_webapi_platform_error', data: { ok: false, error: fail } });
      return { ok: true, ts: '2.000001', ...result };
    });
  const slack = {
    chat: {
      startStream: record('chat.startStream', {}, opts.refuseStart),
      appendStream: record('chat.appendStream'),
      stopStream: record('chat.stopStream', {}, opts.refuseStop),
      postMessage: record('chat.postMessage', { ts: '3.000001' }),
      update: record('chat.update'),
    },
    conversations: {
      history: vi.fn(async () => ({ ok: true, messages: [] })),
      replies: vi.fn(async () => ({ ok: true, messages: [] })),
    },
  };
  return { slack: slack as unknown as StreamSlack, calls };
}

function writer(slack: StreamSlack, over: Partial<WriterDeps> = {}) {
  let t = 0;
  const deps: WriterDeps = {
    slack,
    budget: { take: async () => ({ ok: true }) },
    logger: createLogger('silent'),
    now: () => (t += 100),
    ...over,
  };
  const target = answerTarget();
  return new AnswerWriter(deps, target, memorySteps());
}

describe('the answer writer', () => {
  it(
    'a 2,000-character answer in 1-character deltas costs at most 15 ' +
      'Slack calls, and every character arrives in order',
    async () => {
      const { slack, calls } = slackStub();
      const w = writer(slack);
      const text = Array.from({ length: 2_000 }, (_, i) => String.fromCharCode(97 + (i % 26))).join('');
      for (const ch of text) await w.append(ch);
      await w.finish({ blocks: [{ type: 'divider' }] });
      expect(calls.length).toBeLessThanOrEqual(15);
      expect(calls[0]).toMatchObject({
        method: 'chat.startStream',
        args: { markdown_text: 'a', thread_ts: '1.000001', recipient_user_id: 'U1', recipient_team_id: 'T1' },
      });
      expect(calls.at(-1)).toMatchObject({ method: 'chat.stopStream', args: { blocks: [{ type: 'divider' }] } });
      expect(calls.map((c) => String(c.args.markdown_text ?? '')).join('')).toBe(text);
      for (const c of calls.filter((x) => x.method === 'chat.appendStream'))
        expect(String(c.args.markdown_text).length).toBeGreaterThanOrEqual(MIN_APPEND_CHARS);
    },
  );

  it('the first text starts the stream at once (no buffering before it)', async () => {
    const { slack, calls } = slackStub();
    const w = writer(slack);
    await w.append('Hi');
    expect(calls).toEqual([expect.objectContaining({ method: 'chat.startStream' })]);
    expect(w.firstTextAt).toBeDefined();
  });

  it(
    'streaming refused at the start: the answer is posted, then edited ' +
      '(budget permitting), and finished with the blocks',
    async () => {
      const { slack, calls } = slackStub({ refuseStart: 'unknown_method' });
      const w = writer(slack);
      await w.append('Hello ');
      for (let i = 0; i < 40; i++) await w.append('more text ');
      await w.finish({ blocks: [{ type: 'divider' }], notice: '_done_' });
      const methods = calls.map((c) => c.method);
      expect(methods[0]).toBe('chat.startStream');
      expect(methods[1]).toBe('chat.postMessage');
      const last = calls.at(-1)!;
      expect(last.method).toBe('chat.update');
      expect(JSON.stringify(last.args.blocks)).toContain('_done_');
      expect(last.args.blocks).toEqual(expect.arrayContaining([{ type: 'divider' }]));
    },
  );

  it('a spent edit budget drops intermediate edits; the final edit waits for it, then edits', async () => {
    const { slack, calls } = slackStub({ refuseStart: 'channel_type_not_supported' });
    const sleep = vi.fn(async () => undefined);
    const w = writer(slack, { budget: { take: async () => ({ ok: false, retryMs: 4_000 }) }, sleep });
    await w.append('Hello ');
    for (let i = 0; i < 40; i++) await w.append('more text ');
    await w.finish({ blocks: [] });
    expect(calls.filter((c) => c.method === 'chat.update')).toHaveLength(1);
    expect(sleep.mock.calls.map((c) => (c as unknown[])[0])).toEqual([4_000]);
  });

  it(
    'a stream Slack already ended (the reader pressed Stop): the rest ' +
      'goes to the thread as a reply, nothing is lost',
    async () => {
      const { slack, calls } = slackStub({ refuseStop: 'message_not_in_streaming_state' });
      const w = writer(slack);
      await w.append('Hello');
      await w.finish({ blocks: [{ type: 'divider' }], notice: 'the end' });
      const post = calls.find((c) => c.method === 'chat.postMessage')!;
      expect(JSON.stringify(post.args.blocks)).toContain('the end');
    },
  );
});

describe('the suggestions block', () => {
  it('is dropped however the text is cut into deltas', () => {
    const text = 'Use `acme login`.\n\n```suggestions\nHow do I log out?\nWhat about SSO?\n```\nBye.';
    for (const size of [1, 3, 7, 200]) {
      const f = new SuggestionsFilter();
      let out = '';
      for (let i = 0; i < text.length; i += size) out += f.push(text.slice(i, i + size));
      out += f.end();
      expect(out).toBe('Use `acme login`.\n\nBye.');
    }
  });

  it('leaves other code blocks alone', () => {
    const f = new SuggestionsFilter();
    const text = '```bash\nacme deploy\n```\n';
    expect(f.push(text) + f.end()).toBe(text);
  });
});

describe('the answer writer: cost bounds', () => {
  function timed(opts: { rateLimitFirstAppend?: number } = {}) {
    const { slack, calls } = slackStub();
    let now = 0;
    const at: Array<{ method: string; at: number }> = [];
    const append = slack.chat.appendStream as unknown as ReturnType<typeof vi.fn>;
    const inner = append.getMockImplementation() as (args: Record<string, unknown>) => Promise<unknown>;
    let limited = opts.rateLimitFirstAppend;
    append.mockImplementation(async (args: Record<string, unknown>) => {
      if (limited !== undefined) {
        const retryAfter = limited;
        limited = undefined;
        throw Object.assign(new Error('rate limited'), { code: 'slack_webapi_rate_limited_error', retryAfter });
      }
      at.push({ method: 'chat.appendStream', at: now });
      return inner(args);
    });
    const w = writer(slack, { now: () => now });
    return { w, calls, at, advance: (ms: number) => void (now += ms) };
  }
  const text = Array.from({ length: 2_000 }, (_, i) => String.fromCharCode(97 + (i % 26))).join('');

  it('an assistant writing fast: at most one chat.appendStream a second, every character in order', async () => {
    const { w, calls, at, advance } = timed();
    for (const ch of text) {
      advance(2); // 500 characters a second
      await w.append(ch);
    }
    await w.finish({ blocks: [] });
    for (let i = 1; i < at.length; i++) expect(at[i]!.at - at[i - 1]!.at).toBeGreaterThanOrEqual(1_000);
    expect(at.length).toBeLessThanOrEqual(4);
    expect(calls.map((c) => String(c.args.markdown_text ?? '')).join('')).toBe(text);
  });

  it("Slack's 429 on an append: the text waits for Retry-After, nothing is lost, the answer goes on", async () => {
    const { w, calls, at, advance } = timed({ rateLimitFirstAppend: 3 });
    for (const ch of text) {
      advance(5);
      await w.append(ch);
    }
    await w.finish({ blocks: [] });
    // The first append was refused at 1 s; none until its Retry-After (3 s) had passed.
    expect(at[0]!.at).toBeGreaterThanOrEqual(4_000);
    expect(calls.map((c) => String(c.args.markdown_text ?? '')).join('')).toBe(text);
    expect(calls.at(-1)?.method).toBe('chat.stopStream');
  });
});

describe("the posted fallback: what it may spend of the workspace's chat.update budget", () => {
  /** A writer whose stream start is refused, on a clock the test moves (its sleep moves it too). */
  function fallback(update: (n: number) => void) {
    const { slack, calls } = slackStub({ refuseStart: 'channel_type_not_supported' });
    let now = 1_000_000;
    const updates: Array<{ at: number; text: string; ok: boolean }> = [];
    const mock = slack.chat.update as unknown as ReturnType<typeof vi.fn>;
    mock.mockImplementation(async (args: Record<string, unknown>) => {
      const md = (args.blocks as Array<{ type: string; text?: string }>).find((b) => b.type === 'markdown');
      const entry = { at: now, text: md?.text ?? '', ok: false };
      updates.push(entry);
      update(updates.length);
      entry.ok = true;
      return { ok: true, ts: args.ts };
    });
    const sleep = vi.fn(async (ms: number) => void (now += ms));
    const w = writer(slack, { now: () => now, sleep });
    return { w, calls, updates, sleep, advance: (ms: number) => void (now += ms), at: () => now };
  }
  const rateLimited = () =>
    Object.assign(new Error('A rate limit was exceeded (url: chat.update, retry-after: 30)'), {
      code: 'slack_webapi_rate_limited_error',
      retryAfter: 30,
    });
  const chunks = Array.from({ length: 500 }, (_, i) => `w${i} `);

  it("Slack's 429 (Retry-After 30 s) on an edit: 500 appends make at most 2 chat.update calls, the last one complete after Retry-After", async () => {
    const { w, updates, sleep, advance } = fallback((n) => {
      if (n === 1) throw rateLimited();
    });
    for (const c of chunks) {
      advance(40); // 500 chunks in 20 s: the rest of Retry-After is within the final edit's wait
      await w.append(c);
    }
    await w.finish({ blocks: [{ type: 'divider' }], notice: '_done_' });
    expect(updates.length).toBeLessThanOrEqual(2);
    const last = updates.at(-1)!;
    expect(last.ok).toBe(true);
    expect(last.text).toBe(`${chunks.join('')}\n\n_done_`);
    // The final edit came after Retry-After had passed (it waited, on the writer's clock).
    expect(last.at - updates[0]!.at).toBeGreaterThanOrEqual(30_000);
    expect(sleep).toHaveBeenCalled();
  });

  it('every edit rate limited: 500 appends make one chat.update; the final edit waits out Retry-After before it tries', async () => {
    const { w, updates, advance } = fallback(() => {
      throw rateLimited();
    });
    for (const c of chunks) {
      advance(40);
      await w.append(c);
    }
    expect(updates).toHaveLength(1);
    await expect(w.finish({ blocks: [] })).rejects.toThrow(/rate limit/);
    expect(updates).toHaveLength(2);
    expect(updates[1]!.at - updates[0]!.at).toBeGreaterThanOrEqual(30_000);
  });

  it('an edit budget Redis cannot read: the posted answer is edited anyway, to its complete final text, with a warn line', async () => {
    const { logger, lines } = arrayLogger('warn');
    const { slack, calls } = slackStub({ refuseStart: 'channel_type_not_supported' });
    const take = vi.fn(() => Promise.reject(new Error('Connection is closed.')));
    let now = 1_000_000;
    const w = writer(slack, { now: () => now, budget: { take }, logger });
    for (const c of chunks) {
      now += 100;
      await w.append(c);
    }
    await w.finish({ blocks: [], notice: '_done_' });
    const updates = calls.filter((c) => c.method === 'chat.update');
    expect(updates.length).toBeGreaterThanOrEqual(2); // an intermediate edit and the final one
    const last = (updates.at(-1)!.args.blocks as Array<{ type: string; text?: string }>).find(
      (b) => b.type === 'markdown',
    );
    expect(last?.text).toBe(`${chunks.join('')}\n\n_done_`);
    expect(lines.map((l) => l.msg)).toEqual(
      expect.arrayContaining([
        'could not read the edit budget; editing the answer anyway',
        'could not read the edit budget; making the final edit anyway',
      ]),
    );
    expect(JSON.stringify(lines)).not.toContain('w1 ');
  });

  it('an edit Slack refuses (not a 429) reaches the caller, who ends the answer; nothing is held back silently', async () => {
    const { w, advance } = fallback(() => {
      throw Object.assign(new Error('An API error occurred: internal_error'), {
        code: 'slack_webapi_platform_error',
        data: { ok: false, error: 'internal_error' },
      });
    });
    await w.append('Hello ');
    advance(FALLBACK_EDIT_MS);
    await expect(w.append('world')).rejects.toThrow('internal_error');
  });

  it(`a slow answer (5,000 chunks over 10 minutes): at most ${FALLBACK_MAX_EDITS} edits with growing gaps, then the complete final edit`, async () => {
    const { w, updates, advance } = fallback(() => undefined);
    const slow = Array.from({ length: 5_000 }, (_, i) => `s${i} `);
    for (const c of slow) {
      advance(120);
      await w.append(c);
    }
    await w.finish({ blocks: [] });
    expect(updates.length).toBeLessThanOrEqual(FALLBACK_MAX_EDITS + 1);
    for (let i = 1; i < updates.length - 1; i++)
      expect(updates[i]!.at - updates[i - 1]!.at).toBeGreaterThanOrEqual(FALLBACK_EDIT_MS * 2 ** i);
    expect(updates.at(-1)!.text).toBe(slow.join('').slice(0, ANSWER_MAX_CHARS));
  });
});

describe('a cut answer found after a crash', () => {
  it("reads the thread's pages since the question (Slack lists replies oldest first), at most 20", async () => {
    const { slack, calls } = slackStub();
    let pages = 0;
    const replies = slack.conversations.replies as unknown as ReturnType<typeof vi.fn>;
    replies.mockImplementation(async () => {
      pages += 1;
      const messages = pages === 7 ? [{ ts: '7.000001', bot_id: 'B0BOT' }] : [{ ts: `${pages}.5`, user: 'U2' }];
      return { ok: true, messages, response_metadata: { next_cursor: `c${pages}` } };
    });
    const deps: WriterDeps = {
      slack,
      budget: { take: async () => ({ ok: true }) },
      logger: createLogger('silent'),
      now: () => 0,
    };
    const target = answerTarget();
    const steps = memorySteps();
    steps.progress['k:answer:streaming'] = true;
    expect(await endCutAnswer(deps, target, steps)).toBe('cut');
    expect(pages).toBe(FIND_STREAMED_MAX_PAGES);
    expect(calls).toEqual([
      expect.objectContaining({ method: 'chat.stopStream', args: expect.objectContaining({ ts: '7.000001' }) }),
    ]);
  });
});

describe('the end of an answer when Slack fails', () => {
  const deps = (slack: StreamSlack, logger = createLogger('silent')): WriterDeps => ({
    slack,
    budget: { take: async () => ({ ok: true }) },
    logger,
    now: () => 0,
  });

  it('a stop Slack fails (5xx) is thrown for the retry, with the final write saved: the retry makes it, not a cut-off notice', async () => {
    const { slack, calls } = slackStub({ refuseStop: 'internal_error' });
    const steps = memorySteps();
    const w = new AnswerWriter(deps(slack), answerTarget(), steps);
    await w.append('Rotate it in Settings.');
    await expect(w.finish({ blocks: [{ type: 'divider' }], notice: 'the end' })).rejects.toThrow('internal_error');
    // The retry: the saved stop is made again (Slack answers now); nothing else is posted.
    (slack.chat.stopStream as unknown as ReturnType<typeof vi.fn>).mockImplementation(async (args) => {
      calls.push({ method: 'chat.stopStream', args: args as Record<string, unknown> });
      return { ok: true };
    });
    expect(await endCutAnswer(deps(slack), answerTarget(), steps)).toBe('finished');
    const stops = calls.filter((c) => c.method === 'chat.stopStream');
    expect(stops).toHaveLength(2);
    expect(stops[1]!.args).toMatchObject({ markdown_text: '\n\nthe end', blocks: [{ type: 'divider' }] });
    expect(calls.filter((c) => c.method === 'chat.postMessage')).toEqual([]);
  });

  it('a cut stream Slack fails to stop (5xx) is thrown for the next retry; nothing is posted meanwhile', async () => {
    const { slack, calls } = slackStub({ refuseStop: 'internal_error' });
    const steps = memorySteps();
    steps.progress['k:answer:stream'] = '2.000001';
    await expect(endCutAnswer(deps(slack), answerTarget(), steps)).rejects.toThrow('internal_error');
    expect(calls.map((c) => c.method)).toEqual(['chat.stopStream']);
  });

  it('a cut stream Slack already ended gets the cut-off notice as one reply in the thread (once, across retries)', async () => {
    const { logger, lines } = arrayLogger('warn');
    const { slack, calls } = slackStub({ refuseStop: 'message_not_in_streaming_state' });
    const steps = memorySteps();
    steps.progress['k:answer:stream'] = '2.000001';
    expect(await endCutAnswer(deps(slack, logger), answerTarget(), steps)).toBe('cut');
    expect(await endCutAnswer(deps(slack, logger), answerTarget(), steps)).toBe('cut');
    const posts = calls.filter((c) => c.method === 'chat.postMessage');
    expect(posts).toHaveLength(1);
    expect(posts[0]!.args).toMatchObject({ channel: 'C1', thread_ts: '1.000001', text: CUT_OFF_TEXT });
    expect(lines).toContainEqual(
      expect.objectContaining({ msg: 'posted the cut-off notice of an answer cut by a crash', channel: 'C1' }),
    );
  });

  it('a posted answer cut by a crash (its post begun) gets the cut-off notice as a reply', async () => {
    const { slack, calls } = slackStub();
    const steps = memorySteps();
    steps.progress['k:answer:post:posting'] = true;
    expect(await endCutAnswer(deps(slack), answerTarget(), steps)).toBe('cut');
    expect(calls.filter((c) => c.method === 'chat.postMessage')).toEqual([
      expect.objectContaining({ args: expect.objectContaining({ text: CUT_OFF_TEXT }) }),
    ]);
  });
});
