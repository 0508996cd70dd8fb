import { afterEach, describe, expect, it } from 'vitest';
import type { SlackMessage } from '../../sandbox/fake-slack.js';
import type { SlackDriver } from '../../sandbox/slack-driver.js';
import type { BotProcess } from '../helpers/bot-process.js';
import { waitForIdleQueues } from '../helpers/queues.js';
import { TEST_REDIS_URL } from '../helpers/redis.js';
import { isStatusMessage, messageText, startSandbox, type Sandbox } from '../helpers/sandbox.js';

/**
 * A kill -9 storm: two bot processes on one Redis, one of them killed every 0.4–0.9 s (and a new
 * one started in its place) while 40 `/docs-edit` commands arrive, each at a live replica, as from
 * a load balancer. Every command that was acknowledged (HTTP 200) must end in exactly one job and
 * one announcement, or in the one "may or may not have started" notice; no status message may be
 * left saying "Starting…".
 */

const COMMANDS = 40;
const PAUSE = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Replica {
  bot: BotProcess;
  driver: SlackDriver;
}

/** The replicas and a killer that replaces one of them every 0.4–0.9 s. */
class Storm {
  readonly live: Replica[] = [];
  /** Every replica started, killed ones included (their logs explain a failure). */
  readonly all: Replica[] = [];
  kills = 0;
  private stopped = false;
  private loop: Promise<void> | undefined;

  constructor(private readonly sb: Sandbox) {}

  async start(): Promise<void> {
    this.live.push(await this.replica(), await this.replica());
    this.loop = this.killLoop();
  }

  private async replica(): Promise<Replica> {
    const r = await this.sb.startBot();
    this.all.push(r);
    return r;
  }

  /** Log lines of every replica that mention `needle`. */
  logs(needle: string): string[] {
    return this.all.flatMap((r) =>
      r.bot
        .output()
        .split('\n')
        .filter((l) => l.includes(needle)),
    );
  }

  private async killLoop(): Promise<void> {
    while (!this.stopped) {
      await PAUSE(400 + Math.random() * 500);
      if (this.stopped || this.live.length === 0) continue;
      const victim = this.live.splice(Math.floor(Math.random() * this.live.length), 1)[0]!;
      await victim.bot.kill9();
      this.kills++;
      // Its replacement comes up in the background; meanwhile the other replica serves.
      void this.replica().then(
        (r) => (this.stopped ? r.bot.kill9() : void this.live.push(r)),
        () => undefined,
      );
    }
  }

  /** Stops killing and waits until two replicas are up again. */
  async calm(): Promise<void> {
    this.stopped = true;
    await this.loop;
    while (this.live.length < 2) this.live.push(await this.replica());
  }

  /** Sends one command to a live replica, as a load balancer would. @returns whether it was acknowledged (HTTP 200). */
  async send(text: string): Promise<boolean> {
    for (let tries = 0; tries < 50; tries++) {
      const target = this.live[Math.floor(Math.random() * this.live.length)];
      if (!target) {
        await PAUSE(50);
        continue;
      }
      try {
        const res = await target.driver.slashCommand({
          command: '/docs-edit',
          text,
          user: 'U0ALICE',
          channel: 'C0DOCS',
        });
        return res.status === 200;
      } catch {
        return false; // the replica died with the request in flight: Slack shows an error; nothing was acknowledged
      }
    }
    return false;
  }
}

/** What became of one command, read from the fake Slack and the fake docs API. */
function outcome(sb: Sandbox, instruction: string) {
  const statuses = sb.slack.messages.filter(
    (m) => isStatusMessage(m) && !m.deleted && !m.ephemeralTo && messageText(m).includes(`> ${instruction}`),
  );
  const status = statuses[0];
  const replies: SlackMessage[] = status
    ? sb.slack.messages.filter(
        (m) => m.thread_ts === status.ts && m.ts !== status.ts && m.bot_id && !m.ephemeralTo && !m.deleted,
      )
    : [];
  const creates = sb.docs.requests.filter(
    (r) =>
      r.method === 'POST' &&
      r.path.endsWith('/job') &&
      (r.body as { prompt?: string } | undefined)?.prompt === instruction,
  ).length;
  const announced = replies.filter((m) => m.text.includes('ready for review')).length;
  const uncertain = replies.filter((m) => m.text.includes("can't tell me whether it started")).length;
  const starting = statuses.filter((m) => m.text.includes('Starting')).length;
  return {
    statuses: statuses.length,
    creates,
    announced,
    uncertain,
    replies: replies.length,
    starting,
    final: status ? /Pull request ready|May or may not have started/.test(status.text) : false,
    statusText: status?.text,
    statusTs: status?.ts,
  };
}

describe('kill -9 storm over two replicas', () => {
  let sb: Sandbox | undefined;
  afterEach(async () => {
    await sb?.close();
    sb = undefined;
  });

  for (const run of [1, 2, 3]) {
    it(
      `run ${run}: every acknowledged command ends in one job and one announcement, or in the one uncertain notice`,
      { timeout: 240_000 },
      async () => {
        // 40 commands from one person in minutes: the agent budgets (20 per person per hour by default) would refuse half; the storm is about crashes.
        sb = await startSandbox({
          jobDurationMs: 1_500,
          env: { AGENT_CALLS_PER_USER_PER_HOUR: '1000', AGENT_CALLS_PER_HOUR: '1000' },
        });
        const storm = new Storm(sb);
        await storm.start();
        const acked: string[] = [];
        for (let i = 0; i < COMMANDS; i++) {
          const instruction = `Storm ${run} command ${i}: document the CLI flag --${i}`;
          if (await storm.send(instruction)) acked.push(instruction);
          await PAUSE(150 + Math.random() * 200);
        }
        await storm.calm();
        const s = sb;
        const settled = () =>
          acked.every((t) => {
            const o = outcome(s, t);
            return o.final && o.replies >= 1;
          });
        await s.slack.waitFor(settled, 120_000).catch(() => undefined);
        // Nothing left that could double up: the intake and poll queues are idle.
        await waitForIdleQueues(TEST_REDIS_URL, s.prefix);

        const report = acked.map((t) => ({ t, ...outcome(s, t) }));
        const bad = report.filter(
          (o) =>
            o.statuses !== 1 ||
            o.starting !== 0 ||
            !o.final ||
            o.creates > 1 ||
            o.replies !== 1 ||
            (o.announced === 1 ? o.creates !== 1 : o.uncertain !== 1),
        );
        console.log(
          `kill storm run ${run}: ${storm.kills} kills, ${acked.length}/${COMMANDS} acknowledged, ` +
            `${report.filter((o) => o.announced === 1).length} announced, ${report.filter((o) => o.uncertain === 1).length} uncertain notices, ${bad.length} wrong`,
        );
        for (const o of bad) {
          const jobId = (
            s.docs.requests.find(
              (r) => r.method === 'POST' && r.path.endsWith('/job') && (r.body as { prompt?: string }).prompt === o.t,
            )?.responseBody as { id?: string } | undefined
          )?.id;
          console.log(JSON.stringify(o), jobId, '\n', storm.logs(jobId ?? o.statusTs ?? '?').join('\n'));
        }
        expect(storm.kills).toBeGreaterThanOrEqual(10);
        expect(acked.length).toBeGreaterThanOrEqual(COMMANDS / 2);
        expect(bad).toEqual([]);
        // Nothing left saying "Starting…" anywhere in the channel.
        expect(s.slack.messages.filter((m) => isStatusMessage(m) && !m.deleted && m.text.includes('Starting'))).toEqual(
          [],
        );
      },
    );
  }
});
