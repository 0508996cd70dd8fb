import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { INTAKE } from '../../src/features/agent-jobs/intake.js';
import { JOB_CREATE_CONCURRENCY } from '../../src/features/agent-jobs/start/index.js';
import { Intake } from '../../src/platform/intake.js';
import { createLogger } from '../../src/platform/logger.js';
import { commandOutcome, outcomeIsRight } from '../helpers/command-outcome.js';
import { waitForIdleQueues } from '../helpers/queues.js';
import { TEST_REDIS_URL } from '../helpers/redis.js';
import { startSandbox, type Sandbox } from '../helpers/sandbox.js';

/**
 * The uncertain window when a kill lands on a burst of starts (as after a restart, when a replica
 * takes over the starts recorded meanwhile, 10 at a time: the intake's concurrency): 30 recorded
 * `/docs-edit` starts reach a running bot at once, and it is killed with `kill -9` mid-burst, once
 * {@link KILL_AT_CREATES} creates reached the docs API; a second bot finishes the rest. Only the starts in their
 * uncertain window ("create sent" saved, id not yet) end in the "may or may not have started"
 * notice: at most JOB_CREATE_CONCURRENCY, the process's create slots. Every start ends right.
 */

const STARTS = 30;
/** The kill lands once this many creates reached the docs API. */
const KILL_AT_CREATES = 6;

describe('kill -9 on a burst of starts', () => {
  let sb: Sandbox | undefined;
  let redis: Redis | undefined;
  afterEach(async () => {
    redis?.disconnect();
    await sb?.close();
    sb = undefined;
  });

  it(`catches at most ${JOB_CREATE_CONCURRENCY} starts in their uncertain window; every start ends in one job or the one notice`, async () => {
    sb = await startSandbox({
      jobDurationMs: 800,
      env: { AGENT_CALLS_PER_USER_PER_HOUR: '1000', AGENT_CALLS_PER_HOUR: '1000' },
    });
    const s = sb;
    const first = await s.startBot(undefined, 60_000);
    redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
    const logger = createLogger('silent');
    const intake = new Intake({ connection: redis, prefix: s.prefix, logger }, redis);
    const instructions = Array.from({ length: STARTS }, (_, i) => `Burst start ${i}: document the flag --b${i}`);
    const creates = () => s.docs.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/job')).length;
    await Promise.all(
      instructions.map((instruction, i) =>
        intake.record(INTAKE.start, `burst-${i}`, `req-burst-${i}`, {
          teamId: s.slack.teamId,
          channel: 'C0DOCS',
          requester: 'U0ALICE',
          instruction,
        }),
      ),
    );
    // Mid-burst: a few jobs created, more on their way.
    await s.slack.waitFor(() => creates() >= KILL_AT_CREATES, 60_000);
    await first.bot.kill9();
    const createsAtKill = creates();
    await s.startBot(undefined, 60_000);
    const settled = () => instructions.every((t) => commandOutcome(s, t).final && commandOutcome(s, t).replies >= 1);
    await s.slack.waitFor(settled, 120_000);
    await waitForIdleQueues(TEST_REDIS_URL, s.prefix);
    await intake.close();

    const report = instructions.map((t) => ({ t, ...commandOutcome(s, t) }));
    const uncertain = report.filter((o) => o.uncertain === 1).length;
    const wrong = report.filter((o) => !outcomeIsRight(o));
    console.log(
      `kill on a burst: ${STARTS} starts, ${createsAtKill} creates seen when the kill landed, ` +
        `${report.filter((o) => o.announced === 1).length} announced, ${uncertain} uncertain notices, ${wrong.length} wrong`,
    );
    expect(wrong).toEqual([]);
    expect(uncertain).toBeLessThanOrEqual(JOB_CREATE_CONCURRENCY);
  });
});
