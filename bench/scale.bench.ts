import { mkdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bench, describe } from 'vitest';
import { DurationHistory } from '../src/features/agent-jobs/poll/durations.js';
import { JobStore } from '../src/features/agent-jobs/store.js';
import { fingerprint, STATE_REACTION, statusMessageOf } from '../src/features/agent-jobs/status/view.js';
import { createPollQueue, watchAgentJob } from '../src/features/agent-jobs/poll/worker.js';
import { createLogger } from '../src/platform/logger.js';
import { startSandbox, E2E_SECRETS } from '../test/helpers/sandbox.js';
import { testRedis, TEST_REDIS_URL } from '../test/helpers/redis.js';
import { jobRecord } from '../test/helpers/job-record.js';
import { seeded } from './poll-sim.js';

/**
 * Scale: one bot process (the real one, `src/main.ts`) tracks SCALE_JOBS agent
 * jobs at once (default 10,000) against the fake docs API, with the default POLL_MIN/MAX and a
 * learned history of hour-long jobs, so every job polls every POLL_MAX_INTERVAL_MS (120 s) — the
 * steady state of long jobs. Reports Redis bytes and keys per tracked job (MEMORY USAGE over every
 * key under the prefix, 200-character instructions), the bot's CPU share and RSS while it only
 * polls (SCALE_WINDOW_S, default 60 s), and the ack latency of /docs-edit commands sent meanwhile
 * (vs. before the jobs were seeded). Linux only (/proc).
 */

const JOBS = Number(process.env.SCALE_JOBS ?? 10_000);
const WINDOW_S = Number(process.env.SCALE_WINDOW_S ?? 60);
const CLK_TCK = 100;
/** SCALE_PROFILE=dir: the bot runs with bench/cpu-profile.preload.mjs and is stopped cleanly after the window; its CPU profile lands in dir. */
const PROFILE_DIR = process.env.SCALE_PROFILE;
if (PROFILE_DIR) mkdirSync(PROFILE_DIR, { recursive: true });

function procStat(pid: number): { cpuS: number; rssMb: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const cpuS = (Number(fields[11]) + Number(fields[12])) / CLK_TCK; // utime + stime (fields 14, 15)
  const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return { cpuS, rssMb: Number(rss?.[1] ?? 0) / 1024 };
}

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]!;
}

async function keysUnder(
  redis: ReturnType<typeof testRedis>,
  prefix: string,
): Promise<{ keys: number; bytes: number; byKind: Map<string, { keys: number; bytes: number }> }> {
  let cursor = '0';
  let keys = 0;
  let bytes = 0;
  const byKind = new Map<string, { keys: number; bytes: number }>();
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    if (!batch.length) continue;
    const p = redis.pipeline();
    for (const k of batch) p.memory('USAGE', k, 'SAMPLES', '0');
    const res = (await p.exec()) ?? [];
    batch.forEach((k, i) => {
      const b = Number(res[i]?.[1] ?? 0);
      keys++;
      bytes += b;
      const kind = k
        .slice(prefix.length + 1)
        .replace(/:[^:]*$/, '')
        .replace(/agent-[A-Za-z0-9_.-]+-\d+|job_[a-z0-9]+/, '<job>');
      const e = byKind.get(kind) ?? { keys: 0, bytes: 0 };
      e.keys++;
      e.bytes += b;
      byKind.set(kind, e);
    });
  } while (cursor !== '0');
  return { keys, bytes, byKind };
}

async function acks(send: () => Promise<unknown>, n: number, spacingMs: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await send();
    out.push(performance.now() - t);
    await new Promise((r) => setTimeout(r, spacingMs));
  }
  return out;
}

async function scale(): Promise<string> {
  const sb = await startSandbox({
    jobDurationMs: 24 * 3600_000,
    env: {
      POLL_MIN_INTERVAL_MS: '10000',
      POLL_MAX_INTERVAL_MS: '120000',
      LOG_LEVEL: 'warn',
      SLACK_UPDATE_BUDGET_PER_MINUTE: '40',
    },
  });
  const redis = testRedis();
  const logger = createLogger('silent');
  const queue = createPollQueue({ connection: { url: TEST_REDIS_URL }, prefix: sb.prefix, logger });
  try {
    // History: 200 jobs of about an hour, so the learned plan polls every 120 s between 5 and 45 minutes.
    const history = new DurationHistory(redis, sb.prefix, 'proj_e2e', Date.now);
    const random = seeded(7);
    for (let i = 0; i < 200; i++) await history.record(3_600_000 * (0.9 + 0.2 * random()));
    const preload = fileURLToPath(new URL('./cpu-profile.preload.mjs', import.meta.url));
    const { bot, driver } = await sb.startBot(
      PROFILE_DIR ? { NODE_OPTIONS: `--import ${preload}`, CPU_PROFILE_DIR: resolve(PROFILE_DIR) } : {},
    );
    const pid = bot.proc.pid!;
    const docsEdit = (i: number) =>
      driver.slashCommand({
        command: '/docs-edit',
        text: `Scale bench command ${i}`,
        user: 'U0ALICE',
        channel: 'C0DOCS',
      });
    const idleAcks = await acks(() => docsEdit(0), 20, 100);
    const before = await keysUnder(redis, sb.prefix);

    // Seed JOBS tracked jobs, 10 minutes into their run, first polls spread over the next 120 s.
    const store = new JobStore(redis, sb.prefix);
    const instruction =
      'Document the retry policy of the webhooks API: which status codes are retried, the backoff schedule, idempotency keys, and how to replay a failed delivery from the dashboard. Add an example.'
        .padEnd(200, '.')
        .slice(0, 200);
    const startedAt = Date.now() - 10 * 60_000;
    for (let i = 0; i < JOBS; i += 200) {
      await Promise.all(
        Array.from({ length: Math.min(200, JOBS - i) }, async (_, k) => {
          const created = await fetch(`${sb.docs.url}/v2/agent/proj_e2e/job`, {
            method: 'POST',
            headers: { authorization: `Bearer ${E2E_SECRETS.DOCS_API_KEY}`, 'content-type': 'application/json' },
            body: JSON.stringify({ prompt: instruction }),
          });
          const { id, source } = (await created.json()) as { id: string; source: { repository: string; ref: string } };
          const ts = `1790000000.${String(i + k).padStart(6, '0')}`;
          // Steady state: earlier polls kept the job's repository and branch, and the status message
          // shows the running job (the presenter's edit set `shown` and the reaction), so a poll
          // that finds it unchanged edits nothing.
          const rec = jobRecord({
            jobId: id,
            projectId: 'proj_e2e',
            teamId: 'T0SANDBOX',
            channel: 'C0DOCS',
            threadTs: ts,
            statusTs: ts,
            reactionTs: ts,
            requester: 'U0ALICE',
            cycleRequester: 'U0ALICE',
            instruction,
            createdAt: startedAt,
            cycleStartedAt: startedAt,
            repository: source.repository,
            branch: source.ref,
          });
          await store.create({
            ...rec,
            shown: fingerprint(statusMessageOf(rec, Date.now())),
            reaction: STATE_REACTION.active,
          });
          await watchAgentJob(queue, id, 0, Math.floor(random() * 120_000));
        }),
      );
    }
    sb.docs.requests.length = 0;
    const t0 = procStat(pid);
    const started = Date.now();
    const busyAcks = await acks(() => docsEdit(1), Math.max(5, Math.floor(WINDOW_S / 2)), 2_000);
    await new Promise((r) => setTimeout(r, Math.max(0, WINDOW_S * 1000 - (Date.now() - started))));
    const t1 = procStat(pid);
    const elapsedS = (Date.now() - started) / 1000;
    const polls = sb.docs.requests.filter((r) => r.method === 'GET').length;
    const after = await keysUnder(redis, sb.prefix);
    if (PROFILE_DIR) {
      bot.proc.kill('SIGTERM'); // the profile is written on a clean exit
      await bot.exited;
    }
    const cpu = (t1.cpuS - t0.cpuS) / elapsedS;
    const kinds = [...after.byKind.entries()]
      .map(
        ([kind, v]) =>
          [
            kind,
            v.keys - (before.byKind.get(kind)?.keys ?? 0),
            v.bytes - (before.byKind.get(kind)?.bytes ?? 0),
          ] as const,
      )
      .filter(([, k]) => k > 0)
      .map(([kind, k, b]) => `${kind} ${(k / JOBS).toFixed(2)} keys, ${(b / JOBS).toFixed(0)} B`);
    return [
      `Scale: ${JOBS} jobs tracked by one bot, polls every 120 s (default bounds, learned plan), ${elapsedS.toFixed(0)} s window, Node ${process.version}`,
      `Redis per tracked job: ${((after.bytes - before.bytes) / JOBS).toFixed(0)} bytes in ${((after.keys - before.keys) / JOBS).toFixed(2)} keys (${kinds.join('; ')})`,
      `bot while polling: ${(polls / elapsedS).toFixed(1)} polls/s, CPU ${(100 * cpu).toFixed(1)} % of one core (${((1000 * cpu * elapsedS) / Math.max(1, polls)).toFixed(2)} ms per poll), RSS ${t1.rssMb.toFixed(0)} MB`,
      `ack of /docs-edit: idle p50 ${quantile(idleAcks, 0.5).toFixed(1)} ms, p95 ${quantile(idleAcks, 0.95).toFixed(1)} ms; while polling p50 ${quantile(busyAcks, 0.5).toFixed(1)} ms, p95 ${quantile(busyAcks, 0.95).toFixed(1)} ms, max ${Math.max(...busyAcks).toFixed(1)} ms`,
    ].join('\n');
  } finally {
    await queue.close();
    await sb.close();
    redis.disconnect();
  }
}

console.log(`\n${await scale()}\n`);

describe('scale', () => {
  bench('(see the table above)', () => {}, { iterations: 1 });
});
