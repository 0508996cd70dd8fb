import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SlackDriver } from '../../sandbox/slack-driver.js';
import { globEscape, unlinkMatching } from '../../src/platform/redis-scan.js';
import { cluster, RedisTopology } from '../helpers/redis-topology.js';
import {
  docsEdit,
  ephemeralsTo,
  messageText,
  startSandbox,
  statusMessage,
  threadReplies,
  type Sandbox,
} from '../helpers/sandbox.js';

/**
 * The bot on a local Redis Cluster of three primaries (redis-server processes started here), in
 * Cluster mode (REDIS_CLUSTER_NODES): the core flows of the end-to-end suite — a /docs-edit to its
 * PR link, a follow-up in its thread, a visitors report, a digest sent now, and the agent budget
 * refusing once spent — with every key of the bot under one hash tag, so that BullMQ's scripts,
 * the bot's transactions and scripts, rate-limiter-flexible and redis-semaphore all stay in one
 * slot (a CROSSSLOT error would fail the flow).
 */

const CHANNEL = 'C0DOCS';
let topo: RedisTopology;
let ports: number[];
let sb: Sandbox;
let driver: SlackDriver;
let logs: () => string;

beforeAll(async () => {
  topo = new RedisTopology();
  ports = await cluster(topo);
  sb = await startSandbox({
    env: {
      REDIS_URL: '',
      REDIS_CLUSTER_NODES: ports.map((p) => `127.0.0.1:${p}`).join(','),
      AGENT_CALLS_PER_USER_PER_HOUR: '3',
    },
  });
  const started = await sb.startBot({}, 90_000);
  driver = started.driver;
  logs = () => started.bot.output();
}, 120_000);

afterAll(async () => {
  await sb?.close();
  await topo?.stop();
});

describe('Redis Cluster (three primaries): the core flows', () => {
  it('/docs-edit ends in its PR link, and a reply in the thread continues the job', async () => {
    const jobId = await docsEdit(sb, driver, 'Add a quickstart for the Python SDK');
    const status = await statusMessage(sb.slack, jobId);
    await sb.slack.waitFor(() => threadReplies(sb.slack, CHANNEL, status.ts).length >= 1, 20_000);
    expect(threadReplies(sb.slack, CHANNEL, status.ts)[0]!.text).toMatch(/pull\/\d+/);
    await driver.message({ channel: CHANNEL, user: 'U0ALICE', thread_ts: status.ts, text: 'also add a Go example' });
    await sb.slack.waitFor(
      () => sb.docs.requests.some((r) => r.method === 'POST' && r.path.endsWith(`/job/${jobId}/message`)),
      20_000,
    );
    await sb.slack.waitFor(() => threadReplies(sb.slack, CHANNEL, status.ts).length >= 2, 20_000);
    expect(threadReplies(sb.slack, CHANNEL, status.ts)[1]!.text).toMatch(/pull\/\d+/);
  });

  it('/docs-visitors posts a report, and "digest" sends a digest now', async () => {
    expect(
      (
        await driver.slashCommand({
          command: '/docs-visitors',
          text: '2026-11-15 2026-11-22',
          user: 'U0ALICE',
          channel: CHANNEL,
        })
      ).status,
    ).toBe(200);
    await sb.slack.waitFor(
      () =>
        sb.slack.messages.some(
          (m) => m.channel === CHANNEL && m.bot_id && !m.thread_ts && m.text.startsWith('Docs visitors'),
        ),
      20_000,
    );
    expect(
      (await driver.slashCommand({ command: '/docs-visitors', text: 'digest', user: 'U0ALICE', channel: CHANNEL }))
        .status,
    ).toBe(200);
    const digest = await sb.slack.waitFor(
      () =>
        sb.slack.messages.find(
          (m) => m.channel === CHANNEL && m.bot_id && !m.thread_ts && m.text.startsWith('Weekly docs digest'),
        ),
      30_000,
    );
    expect(messageText(digest)).toContain('Top 10 pages');
  });

  it('the agent budget counts across the cluster: the fourth start within the hour is refused privately', async () => {
    // One start and one follow-up were spent above (3 per person per hour).
    await docsEdit(sb, driver, 'Document the CLI flags');
    const before = sb.docs.requests.length;
    const res = await driver.slashCommand({
      command: '/docs-edit',
      text: 'Document the env vars',
      user: 'U0ALICE',
      channel: CHANNEL,
    });
    expect(res.status).toBe(200);
    await sb.slack.waitFor(
      () =>
        [...ephemeralsTo(sb.slack, 'U0ALICE').map((m) => m.text), res.body].some((t) =>
          /budget|per hour|hourly/i.test(t),
        ),
      20_000,
    );
    expect(sb.docs.requests.slice(before).filter((r) => r.method === 'POST' && r.path.endsWith('/job'))).toEqual([]);
  });

  it('kept every key of the bot in one slot, and never met CROSSSLOT', async () => {
    const c = new Cluster(ports.map((port) => ({ host: '127.0.0.1', port })));
    try {
      const tag = `{${sb.prefix}}`;
      const slot = Number(await c.cluster('KEYSLOT', tag));
      const keys: string[] = [];
      for (const node of c.nodes('master')) {
        let cursor = '0';
        do {
          const [next, found] = await node.scan(cursor, 'COUNT', 1000);
          cursor = next;
          keys.push(...found);
        } while (cursor !== '0');
      }
      const ours = keys.filter((k) => k.includes(tag));
      expect(ours.length).toBeGreaterThan(20);
      expect(keys.filter((k) => !k.includes(tag))).toEqual([]);
      expect(
        new Set(await Promise.all(ours.slice(0, 50).map(async (k) => Number(await c.cluster('KEYSLOT', k))))),
      ).toEqual(new Set([slot]));
    } finally {
      c.disconnect();
    }
    expect(logs()).not.toMatch(/CROSSSLOT/);
  });

  it("an uninstall's channel settings removal (unlinkMatching) finds them on the primary that holds the bot's slot", async () => {
    const c = new Cluster(ports.map((port) => ({ host: '127.0.0.1', port })));
    try {
      const tag = `{${sb.prefix}}`;
      const mine = ['C0ONE', 'C0TWO', 'C0THREE'].map((ch) => `${tag}:settings:team:T0A:channel:${ch}`);
      const others = [`${tag}:settings:team:T0AX:channel:C0ONE`, `${tag}:settings:team:T0B:channel:C0ONE`];
      for (const k of [...mine, ...others]) await c.hset(k, 'followupPolicy', 'requester');
      const outcome = await unlinkMatching(c, `${globEscape(`${tag}:settings:team:T0A:channel:`)}*`);
      expect(outcome).toEqual({ removed: 3, capped: false });
      expect(await Promise.all(mine.map((k) => c.exists(k)))).toEqual([0, 0, 0]);
      expect(await Promise.all(others.map((k) => c.exists(k)))).toEqual([1, 1]);
      await c.unlink(...others);
    } finally {
      c.disconnect();
    }
  });
});
