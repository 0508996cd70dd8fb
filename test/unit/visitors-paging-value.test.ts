import { describe, expect, it } from 'vitest';
import {
  decodePageState,
  encodePageState,
  LAST_WINDOW,
  openPageState,
  PAGE_PURPOSE,
  signPageState,
  type PageState,
} from '../../src/features/visitors/paging-value.js';
import { SIGNATURE_OVERHEAD } from '../../src/platform/slack/signed-value.js';
import { TEST_SIGNER } from '../helpers/signer.js';

const base: PageState = { dateFrom: '2026-11-15', dateTo: '2026-11-22', limit: 50, offset: 100, skip: 0 };

describe('button values carry the whole query', () => {
  it.each<PageState>([
    base,
    { ...base, offset: 0, skip: LAST_WINDOW },
    { ...base, limit: 250, offset: 250, skip: 87, requester: 'U0ALICE' },
    { ...base, requester: 'W012ABCDEF', messageTs: '1763841600.000100' },
    { dateFrom: '2026-11-15T09:00:00.123+05:30', dateTo: '2026-11-16T09:00Z', limit: 1, offset: 999_999, skip: 0 },
  ])('round-trips %j', (state) => {
    const value = encodePageState(state);
    expect(value.length).toBeLessThan(220);
    expect(decodePageState(value)).toEqual(state);
  });

  it.each([
    ['empty', ''],
    ['not JSON', 'next'],
    ['another version', JSON.stringify({ v: 2, f: '2026-11-15', t: '2026-11-22', l: 50, o: 0, s: 0 })],
    ['limit 0', JSON.stringify({ v: 1, f: '2026-11-15', t: '2026-11-22', l: 0, o: 0, s: 0 })],
    ['limit 251', JSON.stringify({ v: 1, f: '2026-11-15', t: '2026-11-22', l: 251, o: 0, s: 0 })],
    ['negative offset', JSON.stringify({ v: 1, f: '2026-11-15', t: '2026-11-22', l: 50, o: -50, s: 0 })],
    ['fractional offset', JSON.stringify({ v: 1, f: '2026-11-15', t: '2026-11-22', l: 50, o: 0.5, s: 0 })],
    ['impossible date', JSON.stringify({ v: 1, f: '2026-02-30', t: '2026-11-22', l: 50, o: 0, s: 0 })],
    ['FROM not before TO', JSON.stringify({ v: 1, f: '2026-11-22', t: '2026-11-15', l: 50, o: 0, s: 0 })],
    [
      'forged requester',
      JSON.stringify({ v: 1, f: '2026-11-15', t: '2026-11-22', l: 50, o: 0, s: 0, u: '<!channel>' }),
    ],
    ['too long', 'x'.repeat(2001)],
  ])('refuses %s', (_name, value) => {
    expect(decodePageState(value)).toBeUndefined();
  });
});

describe('button values are signed by the bot', () => {
  it('open what signPageState made; a value from before signing, a changed query, or another purpose is refused', () => {
    const state: PageState = { ...base, requester: 'U0ALICE', projectId: 'proj_b' };
    const value = signPageState(state, TEST_SIGNER);
    expect(value.length).toBeLessThanOrEqual(encodePageState(state).length + SIGNATURE_OVERHEAD);
    expect(openPageState(value, TEST_SIGNER)).toEqual({ ok: true, state });
    expect(openPageState(encodePageState(state), TEST_SIGNER)).toEqual({ ok: false, reason: 'unsigned' });
    // Another project's analytics, by editing the value: refused.
    expect(openPageState(value.replace('proj_b', 'proj_c'), TEST_SIGNER)).toEqual({ ok: false, reason: 'tampered' });
    expect(openPageState(TEST_SIGNER.sign('settings.edit', encodePageState(state)), TEST_SIGNER)).toEqual({
      ok: false,
      reason: 'tampered',
    });
    expect(openPageState(TEST_SIGNER.sign(PAGE_PURPOSE, 'next'), TEST_SIGNER)).toEqual({
      ok: false,
      reason: 'malformed',
    });
  });
});
