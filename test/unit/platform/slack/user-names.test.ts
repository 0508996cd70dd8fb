import { ErrorCode, type WebClient } from '@slack/web-api';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startFakeSlack, type FakeSlack } from '../../../../sandbox/fake-slack.js';
import { MAX_NAME_LOOKUPS, markupToText } from '../../../../src/platform/slack/markup.js';
import { NAME_LOOKUPS_PER_REQUEST, UserNames } from '../../../../src/platform/slack/user-names.js';
import { createWebClient } from '../../../../src/platform/slack/web-client.js';
import { arrayLogger } from '../../../helpers/logs.js';

/**
 * UserNames (users.info for mentions): shared in-flight lookups, a cache keyed by team that keeps
 * failures briefly, and a 429 that pauses only the name lookups (so a flood of mentions never
 * holds up the bot's posts and edits).
 */

type Info = WebClient['users']['info'];

/** A users.info that answers `alice` for U0ALICE, user_not_found otherwise, after `delayMs`. */
function fakeInfo(delayMs = 5) {
  return vi.fn(async ({ user }: { user: string }) => {
    await new Promise((r) => setTimeout(r, delayMs));
    if (user !== 'U0ALICE')
      throw Object.assign(new Error('An API error occurred: user_not_found'), {
        code: ErrorCode.PlatformError,
        data: { ok: false, error: 'user_not_found' },
      });
    return { ok: true, user: { id: user, name: 'alice.h', profile: { display_name: 'alice', real_name: 'Alice H' } } };
  });
}

// The clock starts past 0: lru-cache treats a start time of 0 as "no TTL".
function names(info: ReturnType<typeof fakeInfo>, now = { t: 1_000_000 }) {
  const { logger, lines } = arrayLogger();
  const n = new UserNames(
    { users: { info: info as unknown as Info } },
    { logger, perf: { now: () => now.t }, ttlMs: 3_600_000, failureTtlMs: 60_000 },
  );
  return { n, lines, now };
}

describe('UserNames', () => {
  it('fifty concurrent lookups of one person make one users.info call; later ones come from the cache', async () => {
    const info = fakeInfo();
    const { n } = names(info);
    const lookup = n.lookup('T1');
    expect(await Promise.all(Array.from({ length: 50 }, () => lookup('U0ALICE')))).toEqual(Array(50).fill('alice'));
    expect(await lookup('U0ALICE')).toBe('alice');
    expect(info).toHaveBeenCalledTimes(1);
  });

  it('a failed lookup is kept briefly (one call for a flood of the same unknown id), then asked again', async () => {
    const info = fakeInfo();
    const { n, now } = names(info);
    const lookup = n.lookup('T1');
    expect(await Promise.all([lookup('U0NOBODY'), lookup('U0NOBODY')])).toEqual([undefined, undefined]);
    expect(await lookup('U0NOBODY')).toBeUndefined();
    expect(info).toHaveBeenCalledTimes(1);
    now.t += 60_001;
    expect(await lookup('U0NOBODY')).toBeUndefined();
    expect(info).toHaveBeenCalledTimes(2);
  });

  it(`one request's lookup asks Slack about at most ${NAME_LOOKUPS_PER_REQUEST} people; cached names are free; the next request has its own budget`, async () => {
    const info = fakeInfo(0);
    const { n } = names(info);
    const first = n.lookup('T1');
    const ids = Array.from({ length: 300 }, (_, i) => `U9${String(i).padStart(6, '0')}`);
    await Promise.all([...ids, ...ids].map((id) => first(id)));
    expect(info).toHaveBeenCalledTimes(NAME_LOOKUPS_PER_REQUEST);
    expect(await first('U0ALICE')).toBeUndefined(); // over budget: unknown, no call
    expect(info).toHaveBeenCalledTimes(NAME_LOOKUPS_PER_REQUEST);
    const second = n.lookup('T1');
    expect(await second('U0ALICE')).toBe('alice');
    expect(await n.lookup('T1', 0)('U0ALICE')).toBe('alice'); // cached: free even with no budget
    expect(info).toHaveBeenCalledTimes(NAME_LOOKUPS_PER_REQUEST + 1);
  });

  it(`both bounds hold: ${MAX_NAME_LOOKUPS} distinct people per text, ${NAME_LOOKUPS_PER_REQUEST} per request across a thread's texts`, async () => {
    const info = fakeInfo(0);
    const { n } = names(info);
    const person = (m: number, k: number) => `U9${String(m * 1000 + k).padStart(6, '0')}`;
    const text = (m: number, k: number) => Array.from({ length: k }, (_, i) => `<@${person(m, i)}>`).join(' ');
    // One follow-up reply of 300 distinct mentions: 25 users.info calls, not 100.
    await markupToText(text(0, 300), 'U0BOT', n.lookup('T1'));
    expect(info).toHaveBeenCalledTimes(MAX_NAME_LOOKUPS);
    // A thread of 8 such messages read for one request: 25 per message until the request's 100 are spent.
    info.mockClear();
    const request = n.lookup('T1');
    for (let m = 1; m <= 8; m++) await markupToText(text(m, 300), 'U0BOT', request);
    expect(info).toHaveBeenCalledTimes(NAME_LOOKUPS_PER_REQUEST);
    const asked = info.mock.calls.map(([a]) => a.user);
    for (let m = 1; m <= 4; m++) expect(asked.filter((u) => u.startsWith(person(m, 0).slice(0, 5)))).toHaveLength(25);
  });

  it('names are cached per team: the same id in another team is its own lookup', async () => {
    const info = fakeInfo();
    const { n } = names(info);
    await n.lookup('T1')('U0ALICE');
    await n.lookup('T2')('U0ALICE');
    await n.lookup('T1')('U0ALICE');
    expect(info).toHaveBeenCalledTimes(2);
  });

  it("after Slack's 429 every lookup answers unknown without a call until Retry-After has passed", async () => {
    const info = fakeInfo();
    info.mockRejectedValueOnce(
      Object.assign(new Error('A rate limit was exceeded'), { code: ErrorCode.RateLimitedError, retryAfter: 30 }),
    );
    const { n, now, lines } = names(info);
    const lookup = n.lookup('T1');
    expect(await lookup('U0ALICE')).toBeUndefined();
    expect(await lookup('U0BOB')).toBeUndefined();
    expect(info).toHaveBeenCalledTimes(1);
    expect(lines.filter((l) => l.level === 40).map((l) => l.msg)).toEqual([
      'Slack is rate limiting users.info; names are left as ids meanwhile',
    ]);
    now.t += 30_001;
    expect(await lookup('U0BOB')).toBeUndefined(); // user_not_found, asked
    expect(info).toHaveBeenCalledTimes(2);
  });
});

describe('UserNames on its own client, against the fake Slack', () => {
  let slack: FakeSlack;
  beforeEach(async () => {
    slack = await startFakeSlack({ botToken: 'xoxb-names' });
  });
  afterEach(() => slack.close());

  it("Slack's 429 on users.info (Retry-After 30 s) neither holds the lookup nor pauses the client that posts", async () => {
    const { logger } = arrayLogger();
    const opts = { token: 'xoxb-names', slackApiUrl: slack.url, logger };
    const poster = createWebClient(opts);
    const n = new UserNames(createWebClient({ ...opts, rejectRateLimitedCalls: true }), { logger });
    slack.failNext('users.info', { status: 429, retryAfterS: 30 });
    const started = Date.now();
    expect(await n.lookup()('U0ALICE')).toBeUndefined();
    await poster.chat.postMessage({ channel: 'C0DOCS', text: 'status' });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(slack.calls.filter((c) => c.method === 'users.info').map((c) => c.status)).toEqual([429]);
  });
});
