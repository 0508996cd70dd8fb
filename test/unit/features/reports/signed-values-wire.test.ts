import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decodeImproveValue, encodeImproveValue } from '../../../../src/features/reports/digests/improve-value.js';
import { decodeDigestRetry, encodeDigestRetry } from '../../../../src/features/reports/digests/retry.js';
import {
  decodeSignalImprove,
  encodeSignalImprove,
  type SignalImproveInput,
} from '../../../../src/features/reports/signals/improve.js';
import { ValueSigner } from '../../../../src/platform/slack/signed-value.js';

/**
 * The digest's Improve, the signals' Improve and the digest's Retry are on the one state codec
 * (signed-state.ts): buttons already posted in Slack must still open. The values below were made by
 * the code before it, with this key; today's code makes the same bytes and opens them.
 */

const signer = ValueSigner.fromSecret('wire-format-of-before');
/** Length and SHA-256 of a value too long to write out here. */
const digest = (s: string | undefined) => [
  s?.length,
  createHash('sha256')
    .update(s ?? '')
    .digest('hex'),
];

const where = { teamId: 'T0TEAM', channel: 'C0DOCS' };
const page = {
  path: '/guides/custom-domain',
  fellPct: 42,
  current: 58,
  previous: 100,
  rangeLabel: 'Nov 15 – Nov 21, 2026',
};
const base = { rangeLabel: 'Nov 15 – Nov 21, 2026', channel: 'C0DOCS' };
const search: SignalImproveInput = {
  ...base,
  projectId: 'proj_docs',
  signal: { kind: 'search', term: 'sso @here project=other <b>', hits: 216 },
};
const feedback: SignalImproveInput = {
  ...base,
  signal: {
    kind: 'feedback',
    path: '/guides/sso',
    thumbsDown: 12,
    thumbsUp: 3,
    comments: ['*wrong* see evil.example', 'ok'],
  },
};
const question: SignalImproveInput = {
  ...base,
  projectId: 'proj_docs',
  signal: {
    kind: 'question',
    question: 'how do I #general?',
    count: 9,
    response: 'see `x`',
    pageUrl: 'https://docs.acme.test/sso',
  },
};

const OLD = {
  retry: 's1.dHB6F6m3s8qeQOYqQM0bow.{"t":"T0TEAM","c":"C0DOCS"}',
  improve: 's1.QuVre0b1nmSLW581hVxtSw.{"p":"/guides/custom-domain","n":42,"c":58,"v":100,"r":"Nov 15 – Nov 21, 2026"}',
  search:
    's1.PIUjmJkRuWVC8Y5VDVs8xg.{"v":2,"s":{"kind":"search","term":"sso @\u2060here project =other &lt;b&gt;","hits":216},"r":"Nov 15 – Nov 21, 2026","c":"C0DOCS","p":"proj_docs"}',
  feedback:
    's1.chjMShWh_pIJOgjl5nu0qA.{"v":2,"s":{"kind":"feedback","path":"/guides/sso","thumbsDown":12,"thumbsUp":3,"comments":["∗wrong∗ see evil.\u2060example","ok"]},"r":"Nov 15 – Nov 21, 2026","c":"C0DOCS"}',
  question:
    's1.JB4OHyy4X7FygRRUeJsMaw.{"v":2,"s":{"kind":"question","count":9,"question":"how do I #\u2060general?","response":"see ˋxˋ","pageUrl":"https:\u2060//docs.\u2060acme.\u2060test/sso"},"r":"Nov 15 – Nov 21, 2026","c":"C0DOCS","p":"proj_docs"}',
};

describe('signed values made before the one codec', () => {
  it("a digest's Retry: the same bytes, and the old value opens", () => {
    expect(encodeDigestRetry(where, signer)).toBe(OLD.retry);
    expect(decodeDigestRetry(OLD.retry, signer)).toEqual({ ok: true, retry: where });
  });

  it("a digest's Improve on a falling page: the same bytes (a path cut to fit too), and the old value opens", () => {
    expect(encodeImproveValue(page, signer)).toBe(OLD.improve);
    expect(decodeImproveValue(OLD.improve, signer)).toEqual({ ok: true, page });
    const long = { ...page, path: '/a'.repeat(1000), rangeLabel: 'r'.repeat(200) };
    expect(digest(encodeImproveValue(long, signer))).toEqual([
      1683,
      '268c7d0aaf84f98692a6fc2376a60d0f27d8b73ebad921828c10a6ba704fcddb',
    ]);
    const escaped = { ...page, path: '/"\\'.repeat(700) };
    expect(digest(encodeImproveValue(escaped, signer))).toEqual([
      1684,
      '66af88d6dacbf9859d501e1b22a85904cdc87b3682c03e916e9a4eb764679cfc',
    ]);
  });

  it('Improve on a reader signal: the same bytes for each kind (cut to fit too), and the old values open', () => {
    expect(encodeSignalImprove(search, signer)).toBe(OLD.search);
    expect(encodeSignalImprove(feedback, signer)).toBe(OLD.feedback);
    expect(encodeSignalImprove(question, signer)).toBe(OLD.question);
    expect(decodeSignalImprove(OLD.search, signer)).toMatchObject({
      ok: true,
      improve: { signal: { kind: 'search', hits: 216 }, channel: 'C0DOCS', projectId: 'proj_docs' },
    });
    expect(decodeSignalImprove(OLD.feedback, signer)).toMatchObject({
      ok: true,
      improve: { signal: { kind: 'feedback', path: '/guides/sso', comments: [expect.any(String), 'ok'] } },
    });
    expect(decodeSignalImprove(OLD.question, signer)).toMatchObject({
      ok: true,
      improve: { signal: { kind: 'question', count: 9 }, rangeLabel: base.rangeLabel, projectId: 'proj_docs' },
    });
    const longQuestion: SignalImproveInput = {
      ...base,
      signal: {
        kind: 'question',
        question: '&<>'.repeat(400),
        count: 9,
        response: '@'.repeat(600),
        pageUrl: `https://docs.acme.test/${'x'.repeat(250)}`,
      },
    };
    expect(digest(encodeSignalImprove(longQuestion, signer))).toEqual([
      1224,
      '714091a79768fec3093a4d15b5abc61a547b9f0ee0218d29eab57c1ecf54f195',
    ]);
    const comments = ['<@U1>'.repeat(200), '&'.repeat(300), '#'.repeat(300)];
    const longFeedback: SignalImproveInput = {
      ...base,
      signal: { kind: 'feedback', path: '/p', thumbsDown: 1, thumbsUp: 0, comments },
    };
    expect(digest(encodeSignalImprove(longFeedback, signer))).toEqual([
      1052,
      '59b73e95d06c5794d245ac3208b49d6c5482df9448b0b79315201df65cdfc319',
    ]);
  });

  it('a Retry whose ids would not fit a button value is not made', () => {
    expect(() => encodeDigestRetry({ teamId: `T${'0'.repeat(2000)}`, channel: 'C0DOCS' }, signer)).toThrow(/too long/);
  });
});
