import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { INTAKE_QUEUE } from '../../src/platform/intake.js';
import { POLL_QUEUE } from '../../src/features/agent-jobs/poll/worker.js';
import { PREVIEW_QUEUE } from '../../src/features/agent-jobs/preview/queue.js';

const PAUSE = (ms: number) => new Promise((r) => setTimeout(r, ms));
const PENDING = ['active', 'waiting', 'delayed', 'prioritized', 'waiting-children'] as const;

/** What the pending jobs are waiting for (when each is due, tries, data) and who works the queues: the failure's evidence. */
async function stuck(queues: Queue[], redisUrl: string, prefix: string): Promise<string> {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  const now = Date.now();
  const lines: string[] = [];
  for (const q of queues) {
    const jobs = await q.getJobs([...PENDING], 0, 19).catch(() => []);
    const workers = await q.getWorkersCount().catch(() => NaN);
    if (!jobs.length) continue;
    lines.push(`${q.name}: ${workers} workers connected`);
    for (const j of jobs) {
      const state = await j.getState().catch(() => 'unknown');
      // A delayed job's due time is its score in the delayed set (BullMQ: timestamp * 0x1000 + counter), also after a backoff.
      const score = j.id ? await redis.zscore(`${prefix}:${q.name}:delayed`, j.id).catch(() => null) : null;
      const due = score === null ? '-' : `${Math.floor(Number(score) / 0x1000) - now} ms`;
      lines.push(
        `  ${j.id} ${state} due in ${due}, attemptsMade ${j.attemptsMade}, processedOn ${j.processedOn ? now - j.processedOn : '-'} ms ago, data ${JSON.stringify(j.data).slice(0, 300)}`,
      );
    }
  }
  redis.disconnect();
  return lines.join('\n');
}

/**
 * Waits until the bots under `prefix` have nothing left to do that could post or edit a message:
 * the intake, poll and preview queues hold no active, waiting, delayed or prioritized job, seen twice
 * 250 ms apart (a job that ends may add the next step in between). Used instead of a fixed "quiet
 * time" before counting doubles.
 * @param redisUrl - the Redis that holds the queues now (after a failover: the promoted primary).
 * @throws after `timeoutMs` naming the queue and what is still pending.
 */
export async function waitForIdleQueues(redisUrl: string, prefix: string, timeoutMs = 60_000): Promise<void> {
  const queues = [INTAKE_QUEUE, POLL_QUEUE, PREVIEW_QUEUE].map(
    (name) => new Queue(name, { connection: { url: redisUrl, maxRetriesPerRequest: 1 }, prefix }),
  );
  const pending = async () => {
    for (const q of queues) {
      const counts = await q.getJobCounts(...PENDING);
      const busy = Object.entries(counts).filter(([, n]) => n > 0);
      if (busy.length) return `${q.name}: ${busy.map(([k, n]) => `${n} ${k}`).join(', ')}`;
    }
    return undefined;
  };
  const deadline = Date.now() + timeoutMs;
  let last: string | undefined = 'not checked yet';
  try {
    while (Date.now() < deadline) {
      last = await pending().catch((err: unknown) => `unreadable (${String(err)})`);
      if (last === undefined) {
        await PAUSE(250);
        last = await pending().catch((err: unknown) => `unreadable (${String(err)})`);
        if (last === undefined) return;
      }
      await PAUSE(100);
    }
    throw new Error(
      `queues under ${prefix} still busy after ${timeoutMs} ms: ${last}\n${await stuck(queues, redisUrl, prefix)}`,
    );
  } finally {
    await Promise.all(queues.map((q) => q.close()));
  }
}
