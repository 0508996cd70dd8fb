import { afterAll, bench, describe } from 'vitest';
import { DurationHistory } from '../src/features/agent-jobs/poll/durations.js';
import { previewMessage } from '../src/features/agent-jobs/preview/blocks.js';
import { SLOT_WINDOW_MS } from '../src/features/agent-jobs/preview/slots.js';
import { TEST_SIGNER } from '../test/helpers/signer.js';
import { previewHarness } from '../test/helpers/preview-harness.js';
import { dropPrefix, randomPrefix, testRedis } from '../test/helpers/redis.js';
import { seeded } from './poll-sim.js';

/**
 * Preview economy, in virtual time: the real preview step (store and slots on real Redis) against
 * the fake docs API's builds. For each scenario: the time from "job completed" to the preview link
 * in Slack, against the fake's build time, and the status reads (GET update-status) per preview.
 * Default poll bounds (POLL_MIN_INTERVAL_MS 10 s, POLL_MAX_INTERVAL_MS 120 s), beside a baseline that
 * reads every 2 s, in the same run. Not a timed test:
 * the figures do not depend on the machine.
 */
const redis = testRedis();
const bounds = { minMs: 10_000, maxMs: 120_000 };
const S = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;

interface Row {
  scenario: string;
  build: number[];
  link: number[];
  reads: number[];
}

/**
 * One preview after another (none waits in line); build times log-normal, median 90 s (σ 0.4),
 * seeded (the baseline and the backoff row see the same builds). `every` (ms): the baseline, a read every `every` ms.
 */
async function sequential(learn: boolean, count: number, warmup: number, every?: number): Promise<Row> {
  const prefix = randomPrefix();
  const random = seeded(7);
  const h = previewHarness({
    redis,
    prefix,
    bounds: every ? { minMs: every, maxMs: every } : bounds,
    ...(learn ? { learn: (key: string) => new DurationHistory(redis, prefix, key, () => h.clock.t) } : {}),
  });
  const row: Row = { scenario: '', build: [], link: [], reads: [] };
  for (let i = 0; i < warmup + count; i++) {
    const normal = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
    h.fake.buildMs = Math.round(90_000 * Math.exp(0.4 * normal));
    const id = `job_seq${String(i).padStart(6, '0')}`;
    h.addJob(id);
    const start = h.clock.t;
    await h.runToEnd(id);
    if (i >= warmup) {
      row.build.push(h.fake.buildMs);
      row.link.push(h.clock.t - start);
      row.reads.push([...h.fake.deployments.values()].at(-1)!.reads);
    }
    h.clock.t += SLOT_WINDOW_MS;
  }
  await dropPrefix(redis, prefix);
  row.scenario = every
    ? `baseline: one at a time, a read every ${every / 1000} s`
    : learn
      ? 'one at a time, learned (after 20 builds)'
      : 'one at a time, backoff (no history)';
  return row;
}

/** 20 jobs completed at the same moment; every build takes 60 s. */
async function burst(): Promise<Row> {
  const prefix = randomPrefix();
  const h = previewHarness({ redis, prefix, bounds, previews: { buildMs: 60_000 } });
  const start = h.clock.t;
  const due = Array.from({ length: 20 }, (_, i) => {
    const id = `job_burst${String(i).padStart(4, '0')}`;
    h.addJob(id);
    return { at: start, data: { agentJobId: id, cycle: 0, completedAt: start, polls: 0, tries: 0 } };
  });
  const row: Row = { scenario: '20 completed together (build 60 s)', build: [], link: [], reads: [] };
  while (due.length) {
    due.sort((x, y) => x.at - y.at);
    const next = due.shift()!;
    h.clock.t = next.at;
    const out = await h.run(next.data);
    if ('result' in out) {
      row.build.push(60_000);
      row.link.push(h.clock.t - start);
    } else due.push({ at: h.clock.t + out.delayMs, data: next.data });
  }
  row.reads = [...h.fake.deployments.values()].map((d) => d.reads);
  if (h.fake.refusals) throw new Error(`the fake refused ${h.fake.refusals} requests`);
  await dropPrefix(redis, prefix);
  return row;
}

function table(rows: Row[]): string {
  const lines = [
    '| scenario | build p50 | link after completed p50 | p95 | max | link − build p50 | p95 | reads/preview |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of rows) {
    const late = r.link.map((l, i) => l - r.build[i]!);
    const reads = r.reads.reduce((a, b) => a + b, 0) / r.reads.length;
    lines.push(
      `| ${r.scenario} | ${S(pct(r.build, 0.5))} | ${S(pct(r.link, 0.5))} | ${S(pct(r.link, 0.95))} | ${S(Math.max(...r.link))} | ${S(pct(late, 0.5))} | ${S(pct(late, 0.95))} | ${reads.toFixed(1)} |`,
    );
  }
  return lines.join('\n');
}

const rows = [
  await sequential(false, 200, 0, 2_000),
  await sequential(false, 200, 0),
  await sequential(true, 200, 20),
  await burst(),
];
console.log(
  `\nPreview economy (virtual time, POLL_MIN_INTERVAL_MS=${bounds.minMs}, POLL_MAX_INTERVAL_MS=${bounds.maxMs}):\n${table(rows)}\n`,
);

afterAll(async () => {
  await redis.quit();
});

describe('preview message', () => {
  const files = { modified: Array.from({ length: 400 }, (_, i) => `guides/page-${i}.mdx`) };
  const record = {
    jobId: 'job_1',
    cycle: 0,
    stage: 'ready' as const,
    previewUrl: 'https://acme-x.mintlify.site',
    files,
  };
  bench('build the message of a ready preview with 400 changed files', () => {
    previewMessage(record, TEST_SIGNER);
  });
});
