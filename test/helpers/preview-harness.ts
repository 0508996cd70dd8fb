/**
 * The preview step (`preview-deployment`) driven in virtual time: the real step, store and slots on
 * real Redis, the fake docs API's previews (sandbox/docs-api/previews.ts) answered in process by the
 * virtual clock, and a small Slack that keeps the thread's messages with their metadata.
 */
import { DelayedError } from 'bullmq';
import type { Redis } from 'ioredis';
import { createPreviewStep } from '../../src/features/agent-jobs/preview/step.js';
import type {
  PreviewJobData,
  PreviewStepDeps,
  PreviewStepResult,
} from '../../src/features/agent-jobs/preview/context.js';
import { PreviewStore } from '../../src/features/agent-jobs/preview/record.js';
import { PreviewSlots, SLOT_WINDOW_MS, SLOTS_PER_WINDOW } from '../../src/features/agent-jobs/preview/slots.js';
import type { JobRecord } from '../../src/features/agent-jobs/store.js';
import { DocsApiNetworkError } from '../../src/platform/docs-api/errors.js';
import { errorFor } from '../../src/platform/docs-api/responses.js';
import { createLogger, type Logger } from '../../src/platform/logger.js';
import type { FakeAgentJob } from '../../sandbox/docs-api/agent-jobs.js';
import { FakePreviews, type FakePreviewsOptions } from '../../sandbox/docs-api/previews.js';
import { TEST_SIGNER } from './signer.js';
import { slackPlatformError } from './fake-slack-client.js';
import { jobRecord } from './job-record.js';

/** A message of the harness' Slack. */
export interface HarnessMessage {
  ts: string;
  thread_ts?: string;
  text: string;
  blocks?: unknown;
  metadata?: { event_type: string; event_payload: { key: string } };
  edits: number;
  /** Every text the message showed, in order (posted, then each edit). */
  history: string[];
  deleted?: boolean;
}

/** How one run of the step ended: a result, or a reschedule after `delayMs`. */
export type RunOutcome = { result: PreviewStepResult } | { delayMs: number };

/** Options of {@link previewHarness}. */
export interface HarnessOptions {
  redis: Redis;
  prefix: string;
  previews?: FakePreviewsOptions;
  bounds?: { minMs: number; maxMs: number };
  ceilingMs?: number;
  logger?: Logger;
  /** Learn build durations (DurationHistory on Redis) for the status polls. @defaultValue false */
  learn?: PreviewStepDeps['durations'];
}

/** Builds the harness (see the module comment). */
export function previewHarness(o: HarnessOptions) {
  const clock = { t: 1_700_000_000_000 };
  const agentJobs = new Map<string, FakeAgentJob>();
  const fake = new FakePreviews(agentJobs, o.previews);
  const records = new Map<string, JobRecord>();
  const messages: HarnessMessage[] = [];
  const inject: { status: number; times: number }[] = [];
  const call = (answer: () => { status: number; body: unknown }) => {
    const forced = inject[0];
    if (forced && forced.times-- > 0) {
      if (forced.times === 0) inject.shift();
      if (forced.status === 0) throw new DocsApiNetworkError('request timed out (injected)');
      throw errorFor({ status: forced.status, text: '{"error":"injected"}', retryAfter: undefined }, clock.t);
    }
    const reply = answer();
    if (reply.status >= 300)
      throw errorFor({ status: reply.status, text: JSON.stringify(reply.body), retryAfter: undefined }, clock.t);
    return reply.body as never;
  };
  let n = 0;
  const slack: PreviewStepDeps['slack'] = {
    chat: {
      postMessage: (async (a: Omit<HarnessMessage, 'ts' | 'edits' | 'history'>) => {
        const ts = `${Math.floor(clock.t / 1000)}.${String(++n).padStart(6, '0')}`;
        messages.push({ ...a, ts, edits: 0, history: [a.text] });
        return { ok: true, ts };
      }) as never,
      update: (async (a: { ts: string; text: string; blocks?: unknown }) => {
        const m = messages.find((x) => x.ts === a.ts)!;
        Object.assign(m, { text: a.text, blocks: a.blocks, edits: m.edits + 1 });
        m.history.push(a.text);
        return { ok: true };
      }) as never,
      delete: (async (a: { ts: string }) => {
        // Slack's chat.delete answers `message_not_found` for a message that is not there (any more).
        const m = messages.find((x) => x.ts === a.ts && !x.deleted);
        if (!m) throw slackPlatformError('message_not_found');
        m.deleted = true;
        return { ok: true };
      }) as never,
    },
    conversations: {
      history: (async () => ({ ok: true, messages: [] })) as never,
      replies: (async (a: { ts: string }) => ({
        ok: true,
        messages: messages.filter((m) => m.thread_ts === a.ts && !m.deleted),
      })) as never,
    },
  };
  const store = new PreviewStore(o.redis, o.prefix);
  const deps: PreviewStepDeps = {
    jobs: {
      get: async (id) => records.get(id),
      updateIfCycle: async (id, cycle, fields) => {
        const r = records.get(id);
        if (!r || r.cycle !== cycle) return false;
        Object.assign(r, fields);
        return true;
      },
    },
    previews: store,
    slots: new PreviewSlots(o.redis, o.prefix, SLOTS_PER_WINDOW, SLOT_WINDOW_MS, () => clock.t),
    docsApi: {
      forProject: (projectId) => ({
        requestPreview: async (branch) => call(() => fake.request(projectId, JSON.stringify({ branch }), clock.t)),
        getUpdateStatus: async (statusId) => call(() => fake.status(statusId, clock.t)),
      }),
    },
    slack,
    status: { show: async () => ({}) },
    ...(o.learn ? { durations: o.learn } : {}),
    bounds: o.bounds ?? { minMs: 10_000, maxMs: 120_000 },
    ...(o.ceilingMs ? { ceilingMs: o.ceilingMs } : {}),
    signer: TEST_SIGNER,
    logger: o.logger ?? createLogger('silent'),
    now: () => clock.t,
    random: () => 0.5,
  };
  const step = createPreviewStep(deps);

  /** One run of the step for `data` at the virtual time; a reschedule updates `data` in place. */
  async function run(data: PreviewJobData): Promise<RunOutcome> {
    let delayMs = 0;
    const job = {
      data,
      updateData: async (d: PreviewJobData) => void Object.assign(data, d),
      // The step plans on the wall clock (BullMQ); a millisecond ticking in between is rounded off.
      moveToDelayed: async (ts: number) => void (delayMs = Math.max(0, Math.round((ts - Date.now()) / 10) * 10)),
    };
    try {
      return { result: await step(job) };
    } catch (err) {
      if (err instanceof DelayedError) return { delayMs };
      throw err;
    }
  }

  return {
    clock,
    fake,
    records,
    messages,
    deps,
    store,
    run,
    /** The next `times` docs API calls (requests or reads) answer `status` (0: time out, no answer). */
    failNext: (status: number, times = 1) => void inject.push({ status, times }),
    /** A job whose run `cycle` completed with a PR on a branch the fake knows. */
    addJob(jobId: string, cycle = 0, prompt = 'Add a page'): JobRecord {
      const ref = `mintlify/agent-${jobId.slice(-8)}`;
      agentJobs.set(jobId, {
        id: jobId,
        projectId: 'proj_1',
        ref,
        model: 'm',
        createdAt: clock.t,
        activeUntil: clock.t,
        outcome: 'pr',
        prNumber: 1,
        messages: [prompt],
      });
      const rec = {
        ...jobRecord({ jobId, projectId: 'proj_1', threadTs: `${jobId}.root`, createdAt: clock.t }),
        cycle,
        state: 'completed' as const,
        prLink: 'https://github.com/acme/docs/pull/1',
        branch: ref,
      };
      records.set(jobId, rec);
      return rec;
    },
    /** Runs `(jobId, cycle)` to its end in virtual time. @returns its result, runs and when it ended. */
    async runToEnd(jobId: string, cycle = 0): Promise<{ result: PreviewStepResult; runs: number; endedAt: number }> {
      const data: PreviewJobData = { agentJobId: jobId, cycle, completedAt: clock.t, polls: 0, tries: 0 };
      for (let runs = 1; ; runs++) {
        const out = await run(data);
        if ('result' in out) return { result: out.result, runs, endedAt: clock.t };
        clock.t += out.delayMs;
      }
    },
  };
}
