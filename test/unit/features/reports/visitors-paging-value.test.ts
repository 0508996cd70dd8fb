import { describe, expect, it } from 'vitest';
import {
  decodePageState,
  encodePageState,
  LAST_WINDOW,
  openPageState,
  PAGE_ACTIONS,
  signPageState,
  type PageState,
} from '../../../../src/features/reports/paging-value.js';
import { SIGNATURE_OVERHEAD } from '../../../../src/platform/slack/signed-value.js';
import { TEST_SIGNER } from '../../../helpers/signer.js';

const base: PageState = {
  dateFrom: '2026-11-15',
  dateTo: '2026-11-22',
  limit: 50,
  offset: 100,
  skip: 0,
  channel: 'C0DOCS',
  projectId: 'proj_docs',
};
/** A wire payload of version 2 with `over` changed. */
const wire = (over: Record<string, unknown>) =>
  JSON.stringify({ v: 2, f: '2026-11-15', t: '2026-11-22', l: 50, o: 0, s: 0, c: 'C0DOCS', p: 'proj_docs', ...over });

describe('button values carry the whole query, bound to a channel and a project', () => {
  it.each<PageState>([
    base,
    { ...base, offset: 0, skip: LAST_WINDOW },
    { ...base, limit: 250, offset: 250, skip: 87, requester: 'U0ALICE' },
    { ...base, requester: 'W012ABCDEF', messageTs: '1763841600.000100' },
    {
      ...base,
      dateFrom: '2026-11-15T09:00:00.123+05:30',
      dateTo: '2026-11-16T09:00Z',
      limit: 1,
      offset: 999_999,
      projectId: 'p'.repeat(100),
    },
  ])('round-trips %j', (state) => {
    const value = encodePageState(state);
    expect(value.length).toBeLessThan(400);
    expect(decodePageState(value)).toEqual(state);
  });

  it.each([
    ['empty', ''],
    ['not JSON', 'next'],
    ['the version bound to no channel', wire({ v: 1 })],
    ['no channel', wire({ c: undefined })],
    ['no project', wire({ p: undefined })],
    ['a channel that is no channel id', wire({ c: '<!channel>' })],
    ['limit 0', wire({ l: 0 })],
    ['limit 251', wire({ l: 251 })],
    ['negative offset', wire({ o: -50 })],
    ['fractional offset', wire({ o: 0.5 })],
    ['impossible date', wire({ f: '2026-02-30' })],
    ['FROM not before TO', wire({ f: '2026-11-22', t: '2026-11-15' })],
    ['forged requester', wire({ u: '<!channel>' })],
  ])('refuses %s', (_name, value) => {
    expect(decodePageState(value)).toBeUndefined();
  });

  it('refuses a well-formed payload padded past a button value (Slack: 2,000 characters)', () => {
    // JSON allows the whitespace: only the length check stands between this value and a state.
    const padded = (n: number) => wire({}).padEnd(n, ' ');
    expect(decodePageState(padded(2000))).toBeDefined();
    expect(decodePageState(padded(2001))).toBeUndefined();
  });
});

describe('button values are signed by the bot, each for its own button', () => {
  it('open what signPageState made; a value from before signing, a changed query, or another purpose is refused', () => {
    const state: PageState = { ...base, requester: 'U0ALICE', projectId: 'proj_b' };
    const next = PAGE_ACTIONS.next;
    const value = signPageState(state, next, TEST_SIGNER);
    expect(value.length).toBeLessThanOrEqual(encodePageState(state).length + SIGNATURE_OVERHEAD);
    expect(openPageState(value, next, TEST_SIGNER)).toEqual({ ok: true, state });
    expect(openPageState(encodePageState(state), next, TEST_SIGNER)).toEqual({ ok: false, reason: 'unsigned' });
    // Another project's analytics, or another channel, by editing the value: refused.
    expect(openPageState(value.replace('proj_b', 'proj_c'), next, TEST_SIGNER)).toEqual({
      ok: false,
      reason: 'tampered',
    });
    expect(openPageState(value.replace('C0DOCS', 'C0LEADS'), next, TEST_SIGNER)).toEqual({
      ok: false,
      reason: 'tampered',
    });
    expect(openPageState(TEST_SIGNER.sign('settings.edit', encodePageState(state)), next, TEST_SIGNER)).toEqual({
      ok: false,
      reason: 'tampered',
    });
    expect(openPageState(TEST_SIGNER.sign(next, 'next'), next, TEST_SIGNER)).toEqual({
      ok: false,
      reason: 'malformed',
    });
  });

  it('an empty value, or a signed one longer than a button value, is malformed before its signature is read', () => {
    const next = PAGE_ACTIONS.next;
    expect(openPageState('', next, TEST_SIGNER)).toEqual({ ok: false, reason: 'malformed' });
    expect(openPageState(undefined, next, TEST_SIGNER)).toEqual({ ok: false, reason: 'malformed' });
    // Its payload alone fits, and the bot's signature over it is good: only its length refuses it.
    const signed = (n: number) => TEST_SIGNER.sign(next, wire({}).padEnd(n - SIGNATURE_OVERHEAD, ' '));
    expect(signed(2000)).toHaveLength(2000);
    expect(openPageState(signed(2000), next, TEST_SIGNER).ok).toBe(true);
    expect(signed(2001)).toHaveLength(2001);
    expect(openPageState(signed(2001), next, TEST_SIGNER)).toEqual({ ok: false, reason: 'malformed' });
  });

  it('a Previous or Next value is no Retry value, and the other way round', () => {
    for (const made of Object.values(PAGE_ACTIONS)) {
      const value = signPageState(base, made, TEST_SIGNER);
      for (const opened of Object.values(PAGE_ACTIONS))
        expect(openPageState(value, opened, TEST_SIGNER).ok, `${made} opened as ${opened}`).toBe(made === opened);
    }
  });
});
