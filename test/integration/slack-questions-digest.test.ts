import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AskStore } from '../../src/features/ask/store.js';
import { SLACK_QUESTIONS_KEPT_MS } from '../../src/features/ask/unanswered-log.js';
import { loadDigestParts } from '../../src/features/reports/digests/load.js';
import { readerBlocks, readerSummary } from '../../src/features/reports/digests/reader-blocks.js';
import { dropPrefix, randomPrefix, testRedis } from '../helpers/redis.js';
import { TEST_SIGNER } from '../helpers/signer.js';

/*
 * "Asked in Slack, not answered by the docs" on real Redis: what the ask feature notes (no page,
 * 👎, the docs team asked), kept 8 days per channel, grouped when it recurs, and shown in the
 * digest of the channel where it was asked only (a private channel's question never in another
 * channel's digest), each with Improve with agent, its text inert.
 */

const redis = testRedis();
let prefix: string;
let store: AskStore;
beforeEach(() => {
  prefix = randomPrefix();
  store = new AskStore(redis, prefix);
});
afterEach(() => dropPrefix(redis, prefix));
afterAll(() => redis.disconnect());

// Monday 2026-11-23 09:00 UTC: the digest's week is Nov 16 (00:00) up to Nov 23 (00:00), UTC.
const NOW = Date.parse('2026-11-23T09:00:00Z');
const DAY = 86_400_000;
const inWeek = Date.parse('2026-11-18T12:00:00Z');

/** An analytics cache that fails every call: the API's parts fail, the Slack part still shows. */
const downCache = new Proxy(
  {},
  {
    get: (_t, prop) =>
      prop === 'defaultProjectId' ? undefined : async () => Promise.reject(new Error('analytics down')),
  },
) as never;

const run = (channel: string) => ({ nowMs: NOW, zone: 'UTC', channel, sections: ['questions'] as const });
const slackQuestions = (s: AskStore) => (c: string, f: number, t: number, l: number) => s.unansweredIn(c, f, t, l);

describe('Asked in Slack, not answered by the docs', () => {
  it('groups the week’s questions per channel (once per answer however often noted), keeps them 8 days, and leaves out other weeks', async () => {
    await store.noteUnanswered('C0DOCS', 'a'.repeat(16), 'How do I set up SCIM?', inWeek);
    await store.noteUnanswered('C0DOCS', 'a'.repeat(16), 'How do I set up SCIM?', inWeek + 1000); // 👎 on the same answer
    await store.noteUnanswered('C0DOCS', 'b'.repeat(16), 'how do I set up  SCIM', inWeek + 2000);
    await store.noteUnanswered('C0DOCS', 'c'.repeat(16), 'Where are audit logs?', inWeek + 3000);
    await store.noteUnanswered('C0DOCS', 'd'.repeat(16), 'Asked last week?', NOW - 8 * DAY + 1000);
    await store.noteUnanswered('C0DOCS', 'e'.repeat(16), 'Asked today', NOW - 1000);
    await store.noteUnanswered('C0PRIVATE', 'f'.repeat(16), 'Our secret <!channel> roadmap?', inWeek);
    const from = Date.parse('2026-11-16T00:00:00Z');
    const to = Date.parse('2026-11-23T00:00:00Z');
    expect(await store.unansweredIn('C0DOCS', from, to, 5)).toEqual([
      { question: 'How do I set up SCIM?', count: 2 },
      { question: 'Where are audit logs?', count: 1 },
    ]);
    const key = `${prefix}:ask:unanswered:C0DOCS`;
    expect(await redis.pttl(key)).toBeLessThanOrEqual(SLACK_QUESTIONS_KEPT_MS);
    expect(await redis.pttl(key)).toBeGreaterThan(SLACK_QUESTIONS_KEPT_MS - 60_000);
    // Nine days on, a new note drops what is older than 8 days.
    await store.noteUnanswered('C0DOCS', '1'.repeat(16), 'Later', NOW + 9 * DAY);
    expect(await redis.zcard(key)).toBe(1);
  });

  it('the digest shows a channel’s own questions, with Improve with agent and the text inert; never another channel’s', async () => {
    await store.noteUnanswered(
      'C0DOCS',
      'a'.repeat(16),
      'How do I set up <https://evil.example|SCIM> for <!channel>?',
      inWeek,
    );
    await store.noteUnanswered(
      'C0DOCS',
      'b'.repeat(16),
      'How do I set up <https://evil.example|SCIM> for <!channel>?',
      inWeek,
    );
    await store.noteUnanswered('C0PRIVATE', 'c'.repeat(16), 'What is the secret roadmap?', inWeek);
    const parts = await loadDigestParts({ cache: downCache }, run('C0DOCS'), slackQuestions(store));
    const signals = parts.readers!.signals;
    expect(signals.slack).toEqual([
      { question: 'How do I set up <https://evil.example|SCIM> for <!channel>?', count: 2 },
    ]);
    expect(signals.failures.map((f) => f.section)).toEqual(['questions']); // the API's part failed, said so
    const blocks = readerBlocks(signals, { channel: 'C0DOCS', week: 'Nov 16 – Nov 22', signer: TEST_SIGNER });
    const json = JSON.stringify(blocks);
    expect(json).toContain('Asked in Slack, not answered by the docs');
    expect(json).toContain('asked 2× here');
    expect(json).not.toMatch(/<!channel>|<https:/);
    expect(json).toContain('visitors.signal.improve.');
    expect(json).not.toContain('secret roadmap');
    expect(readerSummary(signals)).toContain('1 question from Slack not answered');
    // The private channel's digest has its own question, and not the other's.
    const own = await loadDigestParts({ cache: downCache }, run('C0PRIVATE'), slackQuestions(store));
    expect(own.readers!.signals.slack).toEqual([{ question: 'What is the secret roadmap?', count: 1 }]);
    // Without the questions part chosen, or with asking off, nothing is read or shown.
    const none = await loadDigestParts(
      { cache: downCache },
      { ...run('C0DOCS'), sections: ['searches'] },
      slackQuestions(store),
    ).catch(() => undefined);
    expect(none?.readers?.signals.slack).toBeUndefined();
  });
});
