import { Pool } from 'undici';
import { register as registerAgentJobs } from '../src/features/agent-jobs/listeners.js';
import { InFlight } from '../src/platform/in-flight.js';
import type { Intake } from '../src/platform/intake.js';
import type { Logger } from '../src/platform/logger.js';
import { createSlackApp } from '../src/platform/slack/app.js';
import { signatureHeaders } from '../sandbox/driver/http.js';
import { freePort } from '../sandbox/free-port.js';
import { percentile } from '../test/helpers/percentile.js';

/**
 * What the ack benchmarks (ack-latency, ack-wait) share: the bot's receiver with the real
 * /docs-edit listener, signed /docs-edit requests timed from the client, and percentiles.
 */

export const BENCH_SECRET = 'bench-signing-secret';
export const BENCH_TOKEN = 'xoxb-bench-token';

/** A started bot receiver and a keep-alive client pool to it. */
export interface BenchReceiver {
  app: { stop(): Promise<unknown> };
  port: number;
  /** `connections` keep-alive connections to the receiver (one request at a time on each). */
  pool: Pool;
}

/**
 * Starts the bot's receiver and edge (signature, 5-minute window, payload shape) with the real
 * /docs-edit listener recording into `intake` (its ephemeral answers go nowhere).
 * @param connections - the client pool's size: 1 for requests in turn, N for bursts of N at once.
 */
export async function startBotReceiver(
  intake: Intake,
  slackUrl: string,
  logger: Logger,
  connections = 1,
): Promise<BenchReceiver> {
  const port = await freePort();
  const { app } = createSlackApp({
    config: {
      SLACK_BOT_TOKEN: BENCH_TOKEN,
      SLACK_SIGNING_SECRET: BENCH_SECRET,
      SLACK_APP_TOKEN: undefined,
      SLACK_API_URL: slackUrl,
      PORT: port,
    },
    logger,
    inFlight: new InFlight(),
    routes: [],
    commands: ['/docs-edit'],
  });
  registerAgentJobs(app, { intake, slack: { chat: { postEphemeral: async () => ({ ok: true }) } }, logger } as never);
  await app.start();
  return { app, port, pool: new Pool(`http://127.0.0.1:${port}`, { connections }) };
}

let n = 0;

/**
 * Sends one signed `/docs-edit` with `text` (a new `trigger_id` each time, so each is a new
 * request) over `pool`.
 * @returns milliseconds from sending until the ack's body was read.
 * @throws when the answer is not 200.
 */
export async function docsEdit(pool: Pool, text: string): Promise<number> {
  const body = new URLSearchParams({
    command: '/docs-edit',
    text,
    user_id: 'U0ALICE',
    channel_id: 'C0DOCS',
    team_id: 'T0SANDBOX',
    trigger_id: `bench-${process.pid}-${++n}`,
    // Slack's shape (anything else is refused before the listener); never posted to here.
    response_url: 'https://hooks.slack.com/commands/T0SANDBOX/1/bench',
  }).toString();
  const headers = {
    'content-type': 'application/x-www-form-urlencoded',
    ...signatureHeaders(BENCH_SECRET, body, Date.now() / 1000),
  };
  const t0 = process.hrtime.bigint();
  const res = await pool.request({ method: 'POST', path: '/slack/events', headers, body });
  await res.body.text();
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (res.statusCode !== 200) throw new Error(`the receiver answered ${res.statusCode}`);
  return ms;
}

/** A measured case: `run` makes one round (one request, or one burst) and returns its samples in ms. */
export interface BenchCase {
  name: string;
  run: () => Promise<number | number[]>;
}

/** Runs `warmup + rounds` rounds of every case, interleaved (so machine noise hits them alike); @returns each case's samples of the measured rounds. */
export async function interleaved(cases: BenchCase[], warmup: number, rounds: number): Promise<number[][]> {
  const samples = cases.map(() => [] as number[]);
  for (let i = 0; i < warmup + rounds; i++) {
    for (const [k, c] of cases.entries()) {
      const ms = await c.run();
      if (i >= warmup) samples[k]!.push(...[ms].flat());
    }
  }
  return samples;
}

export { percentile };

/**
 * Checks that `intake` holds `expected` records (no worker takes them here), so a benchmark
 * measured recording requests and not something that answered before the listener.
 * @throws naming the numbers when it does not.
 */
export async function expectRecorded(intake: Intake, expected: number): Promise<void> {
  const counts = await intake.queue.getJobCounts('waiting', 'active', 'completed', 'failed');
  const recorded = Object.values(counts).reduce((a, b) => a + b, 0);
  if (recorded !== expected)
    throw new Error(`${recorded} records for ${expected} requests: the benchmark did not measure what it says`);
}

/** A markdown row `| name | p50 | p95 | p99 | …extra |` (ms, two decimals). */
export function percentileRow(name: string, samples: number[], extra: string[] = []): string {
  const cells = [50, 95, 99].map((p) => `${percentile(samples, p).toFixed(2)} ms`);
  return `| ${[name, ...cells, ...extra].join(' | ')} |`;
}
