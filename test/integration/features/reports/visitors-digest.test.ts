import { beforeEach, describe, expect, it } from 'vitest';
import type { Queue } from 'bullmq';
import { DocsApiServerError } from '../../../../src/platform/docs-api/errors.js';
import type { DigestJobData } from '../../../../src/features/reports/digests/store.js';
import { FAKE_NEW_PAGES, type FakeDocsApi } from '../../../../sandbox/fake-docs-api.js';
import type { FakeSlack, SlackMessage } from '../../../../sandbox/fake-slack.js';
import { DIGEST_EVENT_TYPE } from '../../../../src/features/reports/digests/blocks.js';
import { runDigest, type DigestDeps, type DigestRun } from '../../../../src/features/reports/digests/service.js';
import { visitorsKeyPrefix } from '../../../../src/features/reports/service.js';
import { arrayLogger } from '../../../helpers/logs.js';
import { testRedis } from '../../../helpers/redis.js';
import { useDigestRig } from '../../../helpers/digest-rig.js';

const TOKEN = 'xoxb-digest-test';
const redis = testRedis();
let slack: FakeSlack;
let docs: FakeDocsApi;
let deps: DigestDeps;
let digestQueue: Queue<DigestJobData>;
let prefix: string;
/** Tuesday Nov 17, 2026, 09:00 UTC: the digest covers Nov 10–16 (when the fake's new pages appear) vs Nov 3–9. */
let clock = Date.parse('2026-11-17T09:00:00Z');

const visitorCalls = () => docs.requests.filter((r) => r.path.endsWith('/visitors'));
const data = (channel = 'C0DOCS', trigger: DigestJobData['trigger'] = 'scheduled'): DigestJobData => ({
  teamId: slack.teamId,
  channel,
  requestedBy: 'U0ALICE',
  tz: 'UTC',
  trigger,
});
const run = (runKey: string, over: Partial<DigestRun> = {}): DigestRun => ({
  runKey,
  data: data(),
  finalAttempt: false,
  nowMs: clock,
  ...over,
});
const digests = (): SlackMessage[] =>
  slack.messages.filter((m) => m.bot_id && !m.thread_ts && m.text.startsWith('Weekly docs digest'));

useDigestRig(
  {
    token: TOKEN,
    apiKey: 'mint_digest_test',
    projectId: 'proj_digest',
    projectIds: ['proj_other'],
    redis,
    now: () => clock,
    // Channel settings: C0OTHER uses another docs project.
    projectFor: async (channel) => (channel === 'C0OTHER' ? 'proj_other' : 'proj_digest'),
  },
  (t) => ({ slack, docs, prefix, digestQueue, deps } = t),
);
beforeEach(() => {
  clock = Date.parse('2026-11-17T09:00:00Z');
  slack.messages.length = 0;
  slack.calls.length = 0;
});

describe('a digest run (real Redis, fake Slack and docs API)', () => {
  it('posts the week against the week before, new pages included, then the chart in its thread', async () => {
    const outcome = await runDigest(deps, run('run-1'));
    expect(outcome).toMatchObject({ status: 'posted', chart: 'uploaded' });
    const [digest] = digests();
    expect(digest).toBeDefined();
    const json = JSON.stringify(digest!.blocks);
    expect(json).toContain('Weekly docs digest · Nov 10 – Nov 16, 2026');
    expect(json).toContain('vs the 7 before (Nov 3 – Nov 9, 2026)');
    expect(json).toContain('Top 10 pages');
    expect(json).toContain('*Biggest risers*');
    expect(json).toContain('Improve with agent');
    expect(json).toContain(`*New this week* (${FAKE_NEW_PAGES.length})`);
    for (const p of FAKE_NEW_PAGES) expect(json).toContain(`\`${p}\``);
    // Two API calls: this week and the week before, 250 rows each.
    expect(visitorCalls().map((r) => r.query)).toEqual([
      { dateFrom: '2026-11-10', dateTo: '2026-11-17', limit: '250', offset: '0' },
      { dateFrom: '2026-11-03', dateTo: '2026-11-10', limit: '250', offset: '0' },
    ]);
    // Message metadata names the run.
    const post = slack.calls.find(
      (c) =>
        c.method === 'chat.postMessage' &&
        (c.args.metadata as { event_type?: string })?.event_type === DIGEST_EVENT_TYPE,
    );
    expect((post?.args.metadata as { event_payload: { run: string } }).event_payload.run).toBe('run-1');
    // The chart: files.uploadV2 (getUploadURLExternal, upload, completeUploadExternal) into the thread.
    const file = await slack.waitFor(() =>
      slack.messages.find((m) => m.source === 'file_share' && m.thread_ts === digest!.ts),
    );
    expect(file.files?.[0]?.name).toBe('docs-visitors-2026-11-10.png');
    expect(file.files?.[0]?.bytes.subarray(1, 4).toString()).toBe('PNG');
    const complete = slack.calls.find((c) => c.method === 'files.completeUploadExternal');
    expect(complete?.args.thread_ts).toBe(digest!.ts);
  });

  it("a channel on another docs project gets that project's digest, from its own cache entries", async () => {
    await runDigest(deps, run('run-a'));
    await runDigest(deps, run('run-b', { data: data('C0OTHER') }));
    expect(visitorCalls().map((r) => r.projectId)).toEqual(['proj_digest', 'proj_digest', 'proj_other', 'proj_other']);
  });

  it('posts once per run; another channel in the same run costs no API call', async () => {
    await runDigest(deps, run('run-1'));
    expect(await runDigest(deps, run('run-1'))).toMatchObject({ status: 'already_posted' });
    expect(digests()).toHaveLength(1);
    const other = await runDigest(deps, run('run-1-other-channel', { data: data('D0ALICE') }));
    expect(other.status).toBe('posted');
    expect(digests()).toHaveLength(2);
    expect(visitorCalls()).toHaveLength(2);
  });

  it.each(['files.getUploadURLExternal', 'files.completeUploadExternal'])(
    'if %s fails, the text digest is still complete and the run succeeds',
    async (method) => {
      slack.failNext(method, { error: 'internal_error' });
      const outcome = await runDigest(deps, run(`run-${method}`));
      expect(outcome).toMatchObject({ status: 'posted', chart: 'failed' });
      const [digest] = digests();
      const json = JSON.stringify(digest!.blocks);
      expect(json).toContain('Top 10 pages');
      expect(json).toContain('*Falling pages*');
      expect(slack.messages.filter((m) => m.source === 'file_share')).toHaveLength(0);
      expect(slack.calls.filter((c) => c.method === method).at(-1)?.response).toMatchObject({
        ok: false,
        error: 'internal_error',
      });
    },
  );

  it('an API failure throws for BullMQ to retry; on the last attempt the channel is told, with Retry', async () => {
    docs.failNext(/\/visitors$/, 500, 3);
    await expect(runDigest(deps, run('run-fail'))).rejects.toBeInstanceOf(DocsApiServerError);
    expect(slack.messages).toHaveLength(0);
    expect(visitorCalls()).toHaveLength(3); // the client's GET and its 2 retries
    // The last attempt, moments later: the failure is remembered for 15 s, so no new API call.
    await expect(runDigest(deps, run('run-fail', { finalAttempt: true }))).rejects.toBeInstanceOf(DocsApiServerError);
    expect(visitorCalls()).toHaveLength(3);
    const [notice] = slack.messages;
    expect(notice?.text).toBe(
      'The weekly docs digest for Nov 10 – Nov 16, 2026 could not be built. The docs service failed; try again in a minute.',
    );
    expect(JSON.stringify(notice?.blocks)).toContain('visitors.digest.retry');
  });

  it('a channel the bot is not in: the run ends (no retry) and whoever asked for it is told in a DM', async () => {
    const outcome = await runDigest(deps, run('run-random', { data: data('C0RANDOM', 'manual') }));
    expect(outcome).toEqual({ status: 'cannot_post', error: 'not_in_channel' });
    const dm = slack.messages.find((m) => m.channel === 'D0ALICE');
    expect(dm?.text).toContain("I couldn't post the docs digest in <#C0RANDOM>");
  });
});

describe('a digest run when Redis or Slack fails', () => {
  const recordKey = (runKey: string) => `${visitorsKeyPrefix(prefix)}:digest-run:${runKey}`;
  /** The run's deps with a logger whose lines the test reads. */
  const logged = () => {
    const { logger, lines } = arrayLogger('warn');
    return { d: { ...deps, logger }, warns: () => lines.filter((l) => l.level === 40) };
  };

  it('Slack failing the post (not a channel problem) throws for a retry, frees the run, and the retry posts it once', async () => {
    slack.failNext('chat.postMessage', { error: 'internal_error' });
    await expect(runDigest(deps, run('run-5xx'))).rejects.toMatchObject({ data: { error: 'internal_error' } });
    expect(digests()).toHaveLength(0);
    expect(await redis.get(recordKey('run-5xx'))).toBeNull(); // no lease left behind to block the retry
    expect(await runDigest(deps, run('run-5xx'))).toMatchObject({ status: 'posted' });
    expect(await runDigest(deps, run('run-5xx'))).toMatchObject({ status: 'already_posted' });
    expect(digests()).toHaveLength(1);
  });

  it('another attempt holding the run (its lease) makes this one throw without posting, so nothing is posted twice', async () => {
    await redis.set(recordKey('run-held'), 'posting', 'EX', 60);
    await expect(runDigest(deps, run('run-held'))).rejects.toThrow(/another attempt is delivering this digest/);
    expect(slack.calls.filter((c) => c.method === 'chat.postMessage')).toHaveLength(0);
  });

  it('on the last attempt, when even the failure notice cannot be posted, the run still fails (not lost silently) and a warning names the Slack error', async () => {
    const { d, warns } = logged();
    slack.failNext('chat.postMessage', { error: 'internal_error' }, 2);
    await expect(runDigest(d, run('run-last', { finalAttempt: true }))).rejects.toMatchObject({
      data: { error: 'internal_error' },
    });
    expect(slack.messages).toHaveLength(0);
    expect(warns()).toEqual([
      expect.objectContaining({ msg: 'could not announce the failed digest', slackError: 'internal_error' }),
    ]);
  });

  it('a digest asked for in a channel the bot cannot post in, whose asker cannot be told either: the run ends (no retry) and a warning says so', async () => {
    const { d, warns } = logged();
    slack.failNext('chat.postMessage', { error: 'channel_not_found' });
    slack.failNext('chat.postMessage', { error: 'user_disabled' });
    const outcome = await runDigest(d, run('run-nobody', { data: data('C0DOCS', 'manual') }));
    expect(outcome).toEqual({ status: 'cannot_post', error: 'channel_not_found' });
    expect(slack.messages).toHaveLength(0);
    expect(warns().map((l) => l.msg)).toEqual([
      'cannot post the digest in this channel; skipping this run',
      'could not tell why the digest was not posted',
    ]);
  });

  it('a digest asked for in an archived channel: the asker is told by DM to ask in another channel, not to invite the bot', async () => {
    slack.failNext('chat.postMessage', { error: 'is_archived' });
    const outcome = await runDigest(deps, run('run-archived', { data: data('C0DOCS', 'manual') }));
    expect(outcome).toEqual({ status: 'cannot_post', error: 'is_archived' });
    expect(slack.messages.map((m) => [m.channel, m.text])).toEqual([
      [
        'D0ALICE',
        "I couldn't post the docs digest in <#C0DOCS>: it is archived. Ask for the digest in another channel.",
      ],
    ]);
  });

  it("the channel's subscription unreadable: the digest is still posted, its footer without the schedule, and a warning says so", async () => {
    const { d, warns } = logged();
    const broken = Object.create(digestQueue) as Queue<DigestJobData>;
    broken.getJobScheduler = async () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:6379'));
    const outcome = await runDigest({ ...d, digestQueue: broken }, run('run-nosub'));
    expect(outcome).toMatchObject({ status: 'posted' });
    expect(JSON.stringify(digests()[0]?.blocks)).toContain(
      "This channel's weekly digest · `/docs-visitors unsubscribe` stops it",
    );
    expect(warns()).toEqual([
      expect.objectContaining({ msg: "could not read the channel's digest subscription for the footer" }),
    ]);
  });

  it('a run found already posted whose chart cannot be rebuilt (docs API down) is not posted again; the chart is reported failed', async () => {
    const { d, warns } = logged();
    await redis.set(recordKey('run-crashed'), 'posted:1700000000.000100', 'EX', 60);
    docs.failNext(/\/visitors$/, 500, 3);
    const outcome = await runDigest(d, run('run-crashed'));
    expect(outcome).toEqual({ status: 'already_posted', ts: '1700000000.000100', chart: 'failed' });
    expect(slack.calls.filter((c) => c.method === 'chat.postMessage' || c.method.startsWith('files.'))).toEqual([]);
    expect(await redis.get(recordKey('run-crashed'))).toBe('done:1700000000.000100');
    expect(warns()).toEqual([expect.objectContaining({ msg: 'could not finish the chart of a posted digest' })]);
  });
});
