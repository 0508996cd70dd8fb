import { OPEN_GATE } from '../../../../src/platform/access.js';
import type { WebClient } from '@slack/web-api';
import type { Job, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { describe, expect, it, vi } from 'vitest';
import {
  continueAgentJob,
  FollowUpUnrecordedError,
  NOT_A_READER_TEXT,
  READERS_CHECK_FAILED_TEXT,
  UNCERTAIN_FOLLOWUP_TEXT,
  unknownJobText,
} from '../../../../src/features/agent-jobs/follow-up/index.js';
import type { PollJobData } from '../../../../src/features/agent-jobs/poll/step.js';
import {
  ACTION_RESTART,
  CANNOT_POST_TEXT,
  JOB_CREATE_CONCURRENCY,
  RESTART_PURPOSE,
  StatusChangeDeferredError,
  startAgentJob,
  type StartJobRequest,
} from '../../../../src/features/agent-jobs/start/index.js';
import type { ShowOutcome, StatusPresenter } from '../../../../src/features/agent-jobs/status/presenter.js';
import type { JobRecord, JobStore } from '../../../../src/features/agent-jobs/store.js';
import { pollJobId } from '../../../../src/features/agent-jobs/poll/worker.js';
import type { DocsApiClient } from '../../../../src/platform/docs-api/client.js';
import {
  DocsApiForbiddenError,
  DocsApiNetworkError,
  DocsApiNotFoundError,
  DocsApiRateLimitedError,
  DocsApiServerError,
  DocsApiUnauthorizedError,
} from '../../../../src/platform/docs-api/errors.js';
import { UnreplicatedStepError } from '../../../../src/platform/replica-guard.js';
import type { Steps } from '../../../../src/platform/steps.js';
import pLimit from 'p-limit';
import { registerHandlers, type AgentJobsHandlerDeps } from '../../../../src/features/agent-jobs/handlers.js';
import { INTAKE } from '../../../../src/features/agent-jobs/intake.js';
import type { IntakeContext } from '../../../../src/platform/intake.js';
import { checkMessageBlocks } from '../../../../sandbox/slack/block-kit/index.js';
import { RESTART_CONFIRM } from '../../../../src/features/agent-jobs/start/blocks.js';
import { jobRecord } from '../../../helpers/job-record.js';
import { arrayLogger } from '../../../helpers/logs.js';
import { TEST_SIGNER } from '../../../helpers/signer.js';

/*
 * startAgentJob and continueAgentJob at their seams: hand-written fakes of the job store, the docs
 * API, Slack's chat methods, the poll queue, the status presenter, the intake's saved steps and
 * (for the per-job lock) Redis. `order` records the calls that matter across fakes, so the
 * sequence people see can be asserted.
 */

const NOW = 1_700_000_000_000;
const FIRST_POLL_MS = 10_000;
const STATUS_TS = '1700000100.000200';

/** The shared array logger, plus its error lines. */
function logsWithErrors() {
  const { logger, lines } = arrayLogger('debug');
  return { logger, lines, errors: () => lines.filter((l) => l.level >= 50) };
}

function slackPlatformError(code: string): Error {
  return Object.assign(new Error(`An API error occurred: ${code}`), {
    code: 'slack_webapi_platform_error',
    data: { ok: false, error: code },
  });
}

const redisDown = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' });

/** The intake's saved progress, in memory; seed `progress` to replay a retry after a crash. */
function fakeSteps(progress: Record<string, unknown> = {}, finalAttempt = true) {
  const save = vi.fn<Steps['save']>(async (patch) => void Object.assign(progress, patch));
  return { progress, save, finalAttempt };
}

/**
 * Saved steps whose confirmation on the Redis replicas (REDIS_WAIT_REPLICAS) fails for the steps
 * named in `failing` while it holds (a failover under way), and passes for the rest.
 */
function replicatedSteps(progress: Record<string, unknown>, failing: Set<string>) {
  const steps = fakeSteps(progress, false);
  const confirm = vi.fn(async (what: string) => {
    if (failing.has(what)) throw new UnreplicatedStepError('a replica left the primary a moment ago');
  });
  return Object.assign(steps, { confirm });
}

/** The poll queue; `add` records the job it would schedule. */
function fakePollQueue(order: string[]) {
  return {
    add: vi.fn<Queue<PollJobData>['add']>(async (name, data) => {
      order.push(`pollQueue.add ${data.agentJobId}#${data.cycle}`);
      return { id: name } as unknown as Job<PollJobData>;
    }),
  };
}

/** Arguments of the n-th call of a chat.* fake, as plain fields. */
type ChatArgs = {
  channel?: string;
  ts?: string;
  thread_ts?: string;
  text?: string;
  blocks?: unknown;
  metadata?: unknown;
};
const argsOf = (fn: { mock: { calls: unknown[][] } }, n = 0) => (fn.mock.calls[n]?.[0] ?? {}) as ChatArgs;

// ---- startAgentJob -----------------------------------------------------------------------------

function startHarness() {
  const order: string[] = [];
  const log = logsWithErrors();
  const store = {
    create: vi.fn<JobStore['create']>(async (rec) => void order.push(`store.create ${rec.jobId}`)),
    markThreadsPending: vi.fn<JobStore['markThreadsPending']>(async () => void order.push('store.markThreadsPending')),
    clearPendingThreads: vi.fn<JobStore['clearPendingThreads']>(
      async () => void order.push('store.clearPendingThreads'),
    ),
    saveRestart: vi.fn<JobStore['saveRestart']>(async () => undefined),
  };
  const createJob = vi.fn<DocsApiClient['createJob']>(async () => {
    order.push('docsApi.createJob');
    return { id: 'job_new', status: 'active' };
  });
  let posts = 0;
  const chat = {
    postMessage: vi.fn<WebClient['chat']['postMessage']>(async () => {
      order.push('chat.postMessage');
      return { ok: true, ts: posts++ === 0 ? STATUS_TS : `1700000100.00030${posts}` };
    }),
    update: vi.fn<WebClient['chat']['update']>(async () => ({ ok: true })),
    delete: vi.fn<WebClient['chat']['delete']>(async () => ({ ok: true })),
  };
  /** Only read when a retry looks for a message it may already have posted. */
  const conversations = {
    history: vi.fn<WebClient['conversations']['history']>(async () => ({ ok: true, messages: [] })),
    replies: vi.fn<WebClient['conversations']['replies']>(async () => ({ ok: true, messages: [] })),
  };
  const pollQueue = fakePollQueue(order);
  const show = vi.fn(async (jobId: string): Promise<ShowOutcome> => (order.push(`status.show ${jobId}`), {}));
  /** The presenter's change of an unrecorded status message: made on the fake chat methods. */
  const settleUnrecorded = vi.fn<StatusPresenter['settleUnrecorded']>(async (target, change) => {
    if ('delete' in change) await chat.delete({ channel: target.channel, ts: target.statusTs });
    else
      await chat.update({
        channel: target.channel,
        ts: target.statusTs,
        text: change.text,
        blocks: change.blocks as never,
      });
    return {};
  });
  const projectFor = vi.fn(async (_channel: string) => 'proj_b');
  const deps = {
    store,
    docsApi: {
      forProject: (projectId: string) => ({
        createJob: (prompt: string) => (order.push(`project ${projectId}`), createJob(prompt)),
      }),
    },
    projectFor,
    slack: { chat, conversations },
    pollQueue,
    status: { show, settleUnrecorded },
    logger: log.logger,
    firstPollDelayMs: FIRST_POLL_MS,
    access: OPEN_GATE,
    now: () => NOW,
    signer: TEST_SIGNER,
  };
  return { deps, order, store, createJob, projectFor, chat, pollQueue, show, settleUnrecorded, log };
}

const startReq = (over: Partial<StartJobRequest> = {}): StartJobRequest => ({
  teamId: 'T1',
  channel: 'C1',
  requester: 'U0ALICE',
  instruction: 'Add a quickstart for the Python SDK',
  requestKey: 'req-1',
  receivedAt: NOW,
  ...over,
});

describe('startAgentJob', () => {
  it('posts the status message first, then creates the job, records it and starts its poller', async () => {
    const h = startHarness();

    const res = await startAgentJob(h.deps, startReq());

    expect(res).toEqual({ ok: true, jobId: 'job_new', statusTs: STATUS_TS, threadTs: STATUS_TS });
    expect(h.order).toEqual([
      'chat.postMessage',
      'store.markThreadsPending',
      'project proj_b',
      'docsApi.createJob',
      'store.create job_new',
      'pollQueue.add job_new#0',
      'status.show job_new',
    ]);
    expect(h.projectFor).toHaveBeenCalledWith('C1'); // the channel's project
    expect(argsOf(h.chat.postMessage)).toMatchObject({
      channel: 'C1',
      text: 'Docs agent job for <@U0ALICE>: Starting…',
    });
    expect(argsOf(h.chat.postMessage).thread_ts).toBeUndefined(); // a new top-level message
    expect(h.store.markThreadsPending).toHaveBeenCalledWith('C1', [STATUS_TS]);
    expect(h.createJob).toHaveBeenCalledWith('Add a quickstart for the Python SDK');
    expect(h.store.create).toHaveBeenCalledWith(
      jobRecord({
        jobId: 'job_new',
        projectId: 'proj_b',
        teamId: 'T1',
        channel: 'C1',
        threadTs: STATUS_TS,
        statusTs: STATUS_TS,
        requester: 'U0ALICE',
        cycleRequester: 'U0ALICE',
        instruction: 'Add a quickstart for the Python SDK',
        createdAt: NOW,
        cycleStartedAt: NOW,
        reactionTs: STATUS_TS,
      }),
    );
    expect(h.pollQueue.add).toHaveBeenCalledWith(
      'poll',
      { agentJobId: 'job_new', cycle: 0, attempt: 0 },
      { jobId: pollJobId('job_new', 0), delay: FIRST_POLL_MS },
    );
    expect(h.chat.delete).not.toHaveBeenCalled();
    expect(h.log.errors()).toEqual([]);
  });

  it('in a thread (a mention, a digest): status in the thread, both threads indexed, reaction where asked', async () => {
    const h = startHarness();

    const res = await startAgentJob(h.deps, startReq({ threadTs: '1700000000.000100', reactOnStatusMessage: true }));

    expect(res).toMatchObject({ ok: true, statusTs: STATUS_TS, threadTs: '1700000000.000100' });
    expect(argsOf(h.chat.postMessage).thread_ts).toBe('1700000000.000100');
    expect(h.store.markThreadsPending).toHaveBeenCalledWith('C1', ['1700000000.000100', STATUS_TS]);
    expect(h.store.create).toHaveBeenCalledWith(
      expect.objectContaining({ threadTs: '1700000000.000100', statusTs: STATUS_TS, reactionTs: STATUS_TS }),
    );
  });

  it.each(['not_in_channel', 'channel_not_found', 'is_archived'])(
    '%s: tells how to invite the bot and starts nothing',
    async (code) => {
      const h = startHarness();
      h.chat.postMessage.mockRejectedValueOnce(slackPlatformError(code));

      const res = await startAgentJob(h.deps, startReq());

      expect(res).toEqual({ ok: false, reason: 'cannot_post', message: CANNOT_POST_TEXT });
      expect(h.createJob).not.toHaveBeenCalled();
      expect(h.store.markThreadsPending).not.toHaveBeenCalled();
    },
  );

  it('other Slack failures on the last try: "slack", and nothing started', async () => {
    const h = startHarness();
    h.chat.postMessage.mockRejectedValueOnce(slackPlatformError('internal_error'));

    const res = await startAgentJob(h.deps, startReq(), fakeSteps({}, true));

    expect(res).toEqual({
      ok: false,
      reason: 'slack',
      message: 'Slack would not take my message; nothing was started. Try again in a moment.',
    });
    expect(h.createJob).not.toHaveBeenCalled();
  });

  it('other Slack failures before the last try: thrown, so the intake tries again; nothing started', async () => {
    const h = startHarness();
    h.chat.postMessage.mockRejectedValueOnce(slackPlatformError('internal_error'));

    await expect(startAgentJob(h.deps, startReq(), fakeSteps({}, false))).rejects.toThrow('internal_error');
    expect(h.createJob).not.toHaveBeenCalled();
  });

  it.each([
    [
      'rate limited',
      new DocsApiRateLimitedError(undefined),
      'Nothing was started. The docs service is rate limiting us right now; try again in 1m.',
    ],
    [
      'rate limited with Retry-After',
      new DocsApiRateLimitedError(90_000),
      'Nothing was started. The docs service is rate limiting us right now; try again in 1m 30s.',
    ],
    [
      'unauthorized',
      new DocsApiUnauthorizedError(),
      "Nothing was started. The bot's API key was rejected by the docs service; tell the admin who installed this bot.",
    ],
    [
      'forbidden',
      new DocsApiForbiddenError(),
      "Nothing was started. The docs service refused the bot's API key (missing scope or IP allowlist); tell the admin who installed this bot.",
    ],
    [
      'server error',
      new DocsApiServerError(502),
      'Nothing was started. The docs service failed; try again in a minute.',
    ],
    // The request never left (refused, DNS): the job certainly does not exist, so no uncertain notice.
    [
      'connection refused',
      new DocsApiNetworkError('ECONNREFUSED', { sent: false }),
      'Nothing was started. The docs service could not be reached; try again in a minute.',
    ],
    [
      'DNS failure',
      new DocsApiNetworkError('ENOTFOUND', { sent: false }),
      'Nothing was started. The docs service could not be reached; try again in a minute.',
    ],
  ])(
    'createJob fails (%s): placeholder deleted, pending marks cleared, nothing recorded',
    async (_name, err, message) => {
      const h = startHarness();
      h.createJob.mockRejectedValueOnce(err);

      const res = await startAgentJob(h.deps, startReq());

      expect(res).toEqual({ ok: false, reason: 'docs_api', message });
      // Removed through the status message's one writer, the presenter.
      expect(h.settleUnrecorded).toHaveBeenCalledWith(
        { teamId: 'T1', channel: 'C1', statusTs: STATUS_TS },
        { delete: true },
        { force: true },
      );
      expect(h.chat.delete).toHaveBeenCalledWith({ channel: 'C1', ts: STATUS_TS });
      expect(h.store.clearPendingThreads).toHaveBeenCalledWith('C1', [STATUS_TS]);
      expect(h.store.create).not.toHaveBeenCalled();
      expect(h.pollQueue.add).not.toHaveBeenCalled();
      expect(h.show).not.toHaveBeenCalled();
    },
  );

  it('the placeholder of a failed start must wait (Slack rate limited it): the intake tries again, and the removal then lands', async () => {
    const h = startHarness();
    const steps = fakeSteps({}, false);
    h.createJob.mockRejectedValueOnce(new DocsApiServerError(502));
    h.settleUnrecorded.mockResolvedValueOnce({ retryInMs: 30_000 });

    const first = await startAgentJob(h.deps, startReq(), steps).catch((e: unknown) => e);
    expect(first).toBeInstanceOf(StatusChangeDeferredError);
    expect(h.chat.delete).not.toHaveBeenCalled();

    const again = await startAgentJob(h.deps, startReq(), steps); // the intake's next try
    expect(again).toEqual({
      ok: false,
      reason: 'docs_api',
      message: 'Nothing was started. The docs service failed; try again in a minute.',
    });
    expect(h.chat.delete).toHaveBeenCalledWith({ channel: 'C1', ts: STATUS_TS });
    expect(h.createJob).toHaveBeenCalledTimes(1);
    expect(steps.progress.retire).toBeUndefined();
  });

  it('createJob gets no answer (network error): cannot tell whether it started; says so and offers "Start it again"', async () => {
    const h = startHarness();
    h.createJob.mockRejectedValueOnce(new DocsApiNetworkError('timed out'));

    const res = await startAgentJob(h.deps, startReq());

    expect(res).toEqual({ ok: false, reason: 'uncertain', message: '' }); // the thread already says it
    expect(argsOf(h.chat.update)).toMatchObject({
      channel: 'C1',
      ts: STATUS_TS,
      text: 'Docs agent job for <@U0ALICE>: May or may not have started',
    });
    expect(h.chat.postMessage).toHaveBeenCalledTimes(2);
    const notice = argsOf(h.chat.postMessage, 1);
    expect(notice).toMatchObject({ channel: 'C1', thread_ts: STATUS_TS });
    expect(notice.text).toContain("the docs service can't tell me whether it started");
    expect(notice.text).toContain('> Add a quickstart for the Python SDK');
    expect(JSON.stringify(notice.blocks)).toContain(`"value":"${TEST_SIGNER.sign(RESTART_PURPOSE, 'req-1')}"`); // "Start it again"
    expect(h.store.saveRestart).toHaveBeenCalledWith('req-1', {
      teamId: 'T1',
      channel: 'C1',
      requester: 'U0ALICE',
      instruction: 'Add a quickstart for the Python SDK',
    });
    expect(h.store.clearPendingThreads).toHaveBeenCalledWith('C1', [STATUS_TS]);
    expect(h.chat.delete).not.toHaveBeenCalled();
    expect(h.store.create).not.toHaveBeenCalled();
  });

  it('an uncertain start with an About line keeps it: on the status message, and for "Start it again"', async () => {
    const h = startHarness();
    h.createJob.mockRejectedValueOnce(new DocsApiNetworkError('timed out'));
    const about = '"sso saml" · 263 searches';
    await startAgentJob(h.deps, { ...startReq(), prompt: 'Find it.\n\nquoted', about });
    expect(JSON.stringify(argsOf(h.chat.update).blocks)).toContain('About: \\"sso saml\\" · 263 searches');
    expect(h.store.saveRestart).toHaveBeenCalledWith(
      'req-1',
      expect.objectContaining({ prompt: 'Find it.\n\nquoted', about }),
    );
  });

  it('the uncertain notice says plainly a job may already be running and where to look; "Start it again" asks first', async () => {
    const h = startHarness();
    h.createJob.mockRejectedValueOnce(new DocsApiNetworkError('timed out'));

    await startAgentJob(h.deps, startReq());

    const notice = argsOf(h.chat.postMessage, 1);
    expect(notice.text).toContain('*A job may already be running*');
    expect(notice.text).toContain("it won't be in my App Home");
    expect(notice.text).toContain(
      'Look on the docs platform for an agent job or a new pull request in project `proj_b`',
    );
    // Slack shows the confirmation before the click acts; the fake Slack's Block Kit checks take it.
    expect(() => checkMessageBlocks(notice.blocks)).not.toThrow();
    const button = (notice.blocks as Array<{ elements?: Array<Record<string, unknown>> }>)[1]!.elements![0]!;
    expect(button).toMatchObject({ action_id: ACTION_RESTART, confirm: RESTART_CONFIRM });
    expect(notice.text).toContain("Starting again always makes a new job; if the first went through, you'll have two");
    // One name for the act: the button and its confirmation's confirm button.
    expect(button.text).toEqual({ type: 'plain_text', text: 'Start it again' });
    expect(RESTART_CONFIRM.confirm.text).toBe('Start it again');
  });

  it(`creates wait for one of the process's ${JOB_CREATE_CONCURRENCY} create slots: a kill then catches at most that many starts after "create sent"`, async () => {
    const h = startHarness();
    const inFlight: Array<() => void> = [];
    let n = 0;
    h.createJob.mockImplementation(
      () =>
        new Promise((resolve) => {
          const id = `job_${n++}`;
          inFlight.push(() => resolve({ id, status: 'active' }));
        }),
    );
    const slots = pLimit(JOB_CREATE_CONCURRENCY);
    const deps = { ...h.deps, createSlots: slots };
    const steps = Array.from({ length: 8 }, () => fakeSteps({}, false));
    const starts = steps.map((st, i) => startAgentJob(deps, startReq({ requestKey: `req-${i}` }), st));
    // Every start has reached the slots: 2 hold one, the other 6 wait for one.
    await vi.waitFor(() => {
      expect(inFlight).toHaveLength(JOB_CREATE_CONCURRENCY);
      expect(slots.pendingCount).toBe(8 - JOB_CREATE_CONCURRENCY);
    });
    expect(h.createJob).toHaveBeenCalledTimes(JOB_CREATE_CONCURRENCY);
    // Killed now, only the starts in a slot would be uncertain: the others have not marked "create sent".
    expect(steps.filter((st) => st.progress.create === 'sent')).toHaveLength(JOB_CREATE_CONCURRENCY);
    for (let done = 0; done < steps.length; done++) {
      await vi.waitFor(() => expect(inFlight.length).toBeGreaterThan(done));
      expect(h.createJob.mock.calls.length - done).toBeLessThanOrEqual(JOB_CREATE_CONCURRENCY);
      inFlight[done]!();
    }
    const results = await Promise.all(starts);
    expect(results.every((r) => r.ok)).toBe(true);
    expect(new Set(results.map((r) => (r.ok ? r.jobId : '')))).toHaveProperty('size', 8);
  });

  // BUG (wording, src/features/agent-jobs/blocks.ts buildUncertainNotice): the same notice serves
  // a crash mid-create and a create request that merely timed out (service.ts sends network_error
  // to `uncertain` too), so after a timeout people read "I was restarted while I was starting your
  // docs job", which did not happen. Expected: a notice that does not claim a restart.
  it('a timed-out create does not claim the bot was restarted', async () => {
    const h = startHarness();
    h.createJob.mockRejectedValueOnce(new DocsApiNetworkError('timed out'));

    await startAgentJob(h.deps, startReq());

    expect(argsOf(h.chat.postMessage, 1).text).not.toContain('I was restarted');
  });

  it('a retry after a crash while createJob was in flight never creates a second job', async () => {
    const h = startHarness();
    const steps = fakeSteps({ 'req-1:status:ts': STATUS_TS, create: 'sent' });

    const res = await startAgentJob(h.deps, startReq(), steps);

    expect(res).toMatchObject({ ok: false, reason: 'uncertain' });
    expect(h.createJob).not.toHaveBeenCalled();
    expect(h.chat.postMessage).toHaveBeenCalledTimes(1); // only the notice: the status message was already posted
    expect(argsOf(h.chat.postMessage)).toMatchObject({
      thread_ts: STATUS_TS,
      text: expect.stringContaining("can't tell me whether it started"),
    });
    expect(JSON.stringify(argsOf(h.chat.postMessage).blocks)).toContain('Start it again');
  });

  it('a retry after a crash once the job id was saved records it without creating again', async () => {
    const h = startHarness();
    const steps = fakeSteps({
      'req-1:status:ts': STATUS_TS,
      create: 'sent',
      projectId: 'proj_saved',
      jobId: 'job_saved',
    });

    const res = await startAgentJob(h.deps, startReq(), steps);

    expect(res).toEqual({ ok: true, jobId: 'job_saved', statusTs: STATUS_TS, threadTs: STATUS_TS });
    // The project chosen before the create is kept, even if the channel has moved on since.
    expect(h.store.create).toHaveBeenCalledWith(
      expect.objectContaining({ jobId: 'job_saved', projectId: 'proj_saved' }),
    );
    expect(h.projectFor).not.toHaveBeenCalled();
    expect(h.createJob).not.toHaveBeenCalled();
    expect(h.chat.postMessage).not.toHaveBeenCalled();
    expect(h.order).toEqual(['store.create job_saved', 'pollQueue.add job_saved#0', 'status.show job_saved']);
  });

  it('"create sent" not yet on the replicas (a graceful failover under way): no job created, the mark taken back; the retry creates exactly one', async () => {
    const h = startHarness();
    const failing = new Set(['create']);
    const steps = replicatedSteps({}, failing);

    await expect(startAgentJob(h.deps, startReq(), steps)).rejects.toBeInstanceOf(UnreplicatedStepError);
    expect(h.createJob).not.toHaveBeenCalled();
    expect(steps.progress.create).toBeUndefined();
    expect(steps.confirm.mock.calls.map(([what]) => what)).toEqual(['req-1:status', 'create']);

    failing.clear();
    const res = await startAgentJob(h.deps, startReq(), steps);
    expect(res).toMatchObject({ ok: true, jobId: 'job_new' });
    expect(h.createJob).toHaveBeenCalledTimes(1);
    expect(h.chat.postMessage).toHaveBeenCalledTimes(1); // one status message, no "may or may not have started" notice
  });

  it('the status message\'s "posting" mark not yet on the replicas: thrown, nothing posted or created; the retry posts one', async () => {
    const h = startHarness();
    const failing = new Set(['req-1:status']);
    const steps = replicatedSteps({}, failing);
    await expect(startAgentJob(h.deps, startReq(), steps)).rejects.toBeInstanceOf(UnreplicatedStepError);
    expect(h.chat.postMessage).not.toHaveBeenCalled();
    expect(h.createJob).not.toHaveBeenCalled();
    failing.clear();
    expect(await startAgentJob(h.deps, startReq(), steps)).toMatchObject({ ok: true, jobId: 'job_new' });
    expect(h.chat.postMessage).toHaveBeenCalledTimes(1);
  });

  it('a failed start whose "starting" marks Redis cannot clear: the person still gets the failure, one warn line (the marks lapse)', async () => {
    const h = startHarness();
    h.createJob.mockRejectedValueOnce(new DocsApiNetworkError('ENOTFOUND', { sent: false }));
    h.store.clearPendingThreads.mockRejectedValueOnce(redisDown());
    const res = await startAgentJob(h.deps, startReq());
    expect(res).toMatchObject({ ok: false, reason: 'docs_api' });
    expect(h.chat.delete).toHaveBeenCalledWith({ channel: 'C1', ts: STATUS_TS });
    expect(h.log.lines).toContainEqual(
      expect.objectContaining({
        msg: 'could not clear the "starting" marks; they expire on their own',
        channel: 'C1',
        level: 40,
      }),
    );
  });

  it('Redis down before the job is created: thrown for a retry, and no job is created at the vendor', async () => {
    const h = startHarness();
    h.store.markThreadsPending.mockRejectedValueOnce(redisDown());

    await expect(startAgentJob(h.deps, startReq())).rejects.toThrow('ECONNREFUSED');
    expect(h.createJob).not.toHaveBeenCalled();
  });

  it('Redis failing after the job was created, before the last try (a failover): throws for a retry, which records and watches that job, creating none again', async () => {
    const h = startHarness();
    h.store.create.mockRejectedValueOnce(
      Object.assign(new Error("READONLY You can't write against a read only replica."), { name: 'ReplyError' }),
    );
    const steps = fakeSteps({}, false);

    await expect(startAgentJob(h.deps, startReq(), steps)).rejects.toThrow('READONLY');
    expect(h.chat.update).not.toHaveBeenCalled();
    expect(steps.progress).toMatchObject({ jobId: 'job_new' });

    const res = await startAgentJob(h.deps, startReq(), steps);
    expect(res).toMatchObject({ ok: true, jobId: 'job_new' });
    expect(h.createJob).toHaveBeenCalledTimes(1);
    expect(h.pollQueue.add).toHaveBeenCalledTimes(1);
    expect(h.show).toHaveBeenCalledWith('job_new');
    expect(h.log.errors()).toEqual([]);
  });

  it('saving the new job id meets Redis failing over once: saved again at once (the id is known only then), the job recorded and watched', async () => {
    const h = startHarness();
    const steps = fakeSteps({}, false);
    const save = steps.save.getMockImplementation()!;
    let refused = false;
    steps.save.mockImplementation(async (patch) => {
      if ('jobId' in patch && !refused) {
        refused = true;
        throw Object.assign(new Error("READONLY You can't write against a read only replica."), { name: 'ReplyError' });
      }
      return save(patch);
    });
    const res = await startAgentJob(h.deps, startReq(), steps);
    expect(res).toMatchObject({ ok: true, jobId: 'job_new' });
    expect(refused).toBe(true);
    expect(h.createJob).toHaveBeenCalledTimes(1);
    expect(h.log.errors()).toEqual([]);
  });

  it.each([
    ['recording the job', (h: ReturnType<typeof startHarness>) => h.store.create.mockRejectedValueOnce(redisDown())],
    ['queueing its poller', (h: ReturnType<typeof startHarness>) => h.pollQueue.add.mockRejectedValueOnce(redisDown())],
  ])(
    'Redis down after the job was created (%s), on the last try: status message and answer name the job id; error logged',
    async (_name, breakIt) => {
      const h = startHarness();
      breakIt(h);

      const res = await startAgentJob(h.deps, startReq());

      expect(res).toEqual({
        ok: false,
        reason: 'internal',
        message:
          "Job `job_new` started, but I could not keep track of it (a storage problem on my side), so I won't report when it ends. Tell the admin if this keeps happening.",
      });
      expect(h.chat.update).toHaveBeenCalledTimes(1);
      expect(argsOf(h.chat.update)).toMatchObject({
        channel: 'C1',
        ts: STATUS_TS,
        text: 'Docs agent job job_new for <@U0ALICE>: Could not start',
      });
      expect(JSON.stringify(argsOf(h.chat.update).blocks)).toContain(
        "Job `job_new` started, but I could not keep track of it, so I won't report its end here.",
      );
      expect(h.chat.delete).not.toHaveBeenCalled();
      expect(h.show).not.toHaveBeenCalled();
      expect(h.log.errors()).toMatchObject([{ msg: 'created a job but could not record it', jobId: 'job_new' }]);
    },
  );
});

// ---- continueAgentJob --------------------------------------------------------------------------

/** Redis as withJobLock uses it (redis-semaphore's Mutex): SET NX PX to take the lock (free: 'OK'), EVALSHA to release it. */
function fakeLockRedis(order: string[]) {
  const set = vi.fn(async (key: string, _token: string, ..._args: unknown[]) => {
    order.push(`lock ${key}`);
    return 'OK';
  });
  const evalLua = vi.fn(async (_script: string, _n: number, key: string, _token: string) => {
    order.push(`unlock ${key}`);
    return 1;
  });
  return { set, evalsha: evalLua, eval: evalLua };
}

type ContinueHarness = ReturnType<typeof continueHarness>;

function continueHarness(rec: JobRecord | undefined, opts: { policy?: 'anyone' | 'requester' } = {}) {
  const projects: string[] = [];
  const order: string[] = [];
  const log = logsWithErrors();
  const redis = fakeLockRedis(order);
  const store = {
    get: vi.fn<JobStore['get']>(async () => rec && { ...rec }),
    beginCycle: vi.fn<JobStore['beginCycle']>(async () => {
      order.push('store.beginCycle');
      return (rec?.cycle ?? 0) + 1;
    }),
  };
  const sendMessage = vi.fn<DocsApiClient['sendMessage']>(async (id) => {
    order.push('docsApi.sendMessage');
    return { id, status: 'active' };
  });
  const pollQueue = fakePollQueue(order);
  const show = vi.fn(async (jobId: string): Promise<ShowOutcome> => (order.push(`status.show ${jobId}`), {}));
  const deps = {
    store,
    redis: redis as unknown as Redis,
    prefix: 'dab',
    docsApi: { forProject: (projectId: string) => (projects.push(projectId), { sendMessage }) },
    pollQueue,
    status: { show },
    logger: log.logger,
    policyFor: vi.fn(async (_channel: string) => opts.policy ?? 'anyone'),
    firstPollDelayMs: FIRST_POLL_MS,
    access: OPEN_GATE,
    now: () => NOW,
  };
  return { deps, order, redis, store, sendMessage, projects, pollQueue, show, log };
}

const ended = (over: Partial<JobRecord> = {}) =>
  jobRecord({
    jobId: 'job_1',
    requester: 'U1',
    cycleRequester: 'U1',
    state: 'completed',
    prLink: 'https://github.com/acme/docs/pull/1',
    endedAt: 5_000,
    ...over,
  });

const NOT_REACHED_STORAGE = 'Your follow-up was not sent: I could not reach my storage. Try again in a moment.';

describe('continueAgentJob', () => {
  it('sends the follow-up under the job lock, begins cycle N+1, watches it and shows it', async () => {
    const h = continueHarness(ended({ cycle: 1 }));

    const res = await continueAgentJob(h.deps, { jobId: 'job_1', author: 'U2', prompt: 'Also add a Go example' });

    expect(res).toMatchObject({ ok: true, cycle: 2, interrupted: false, rec: { jobId: 'job_1' } });
    expect(h.sendMessage).toHaveBeenCalledWith('job_1', 'Also add a Go example');
    expect(h.projects).toEqual(['proj_a']); // the job's own project, from its record
    expect(h.store.beginCycle).toHaveBeenCalledWith('job_1', 'U2', NOW, '', '', 1);
    expect(h.pollQueue.add).toHaveBeenCalledWith(
      'poll',
      { agentJobId: 'job_1', cycle: 2, attempt: 0 },
      { jobId: pollJobId('job_1', 2), delay: FIRST_POLL_MS },
    );
    expect(h.show).toHaveBeenCalledWith('job_1');
    expect(h.order).toEqual([
      'lock mutex:dab:job-lock:job_1',
      'docsApi.sendMessage',
      'store.beginCycle',
      'pollQueue.add job_1#2',
      'status.show job_1',
      'unlock mutex:dab:job-lock:job_1',
    ]);
    // The lock is released with the token it was taken with (only its holder may drop it).
    expect(h.redis.evalsha.mock.calls[0]![3]).toBe(h.redis.set.mock.calls[0]![1]);
  });

  it('interrupting a run still active: says so on the status message and keeps earlier authors to mention', async () => {
    const h = continueHarness(
      ended({ state: 'active', prLink: null, endedAt: 0, cycle: 2, cycleRequester: 'U1', alsoMention: 'U3,U2' }),
    );

    const res = await continueAgentJob(h.deps, { jobId: 'job_1', author: 'U2', prompt: 'Stop, use tabs' });

    expect(res).toMatchObject({ ok: true, cycle: 3, interrupted: true });
    expect(h.store.beginCycle).toHaveBeenCalledWith(
      'job_1',
      'U2',
      NOW,
      ':leftwards_arrow_with_hook: <@U2> sent a follow-up while the agent was working; it interrupts the current run.',
      'U1,U3',
      2,
    );
  });

  it('an unknown job: says so, sends nothing', async () => {
    const h = continueHarness(undefined);

    const res = await continueAgentJob(h.deps, { jobId: 'job_nope', author: 'U1', prompt: 'hi' });

    expect(res).toEqual({ ok: false, reason: 'unknown_job', message: unknownJobText('job_nope') });
    expect(res).toMatchObject({ message: expect.stringMatching(/^There is no job `job_nope` here that I know of/) });
    expect(h.sendMessage).not.toHaveBeenCalled();
  });

  // Found by the fuzz test (test/faults/fuzz.test.ts): `/docs-reply <!channel> hi` was quoted back as a live mention.
  it('an unknown job id that is markup is quoted as text: no mention, no broken code span, not overlong', async () => {
    const h = continueHarness(undefined);

    const res = await continueAgentJob(h.deps, { jobId: '<!channel>`<@U2>', author: 'U1', prompt: 'hi' });

    expect(res).toMatchObject({
      message: expect.stringMatching(/^There is no job `&lt;!channel&gt;'&lt;@U2&gt;` here that I know of/),
    });
    expect(unknownJobText('x'.repeat(500)).length).toBeLessThan(300);
  });

  it('/docs-reply from another channel: answered exactly like an unknown id, sends nothing', async () => {
    const h = continueHarness(ended({ channel: 'CPRIVATE' }));

    const res = await continueAgentJob(h.deps, { jobId: 'job_1', author: 'U1', prompt: 'hi', fromChannel: 'CPUBLIC' });
    const unknown = await continueAgentJob(continueHarness(undefined).deps, {
      jobId: 'job_1',
      author: 'U1',
      prompt: 'hi',
      fromChannel: 'CPUBLIC',
    });

    expect(res).toEqual(unknown);
    expect(res).toEqual({ ok: false, reason: 'unknown_job', message: unknownJobText('job_1') });
    expect(h.sendMessage).not.toHaveBeenCalled();
    expect(h.redis.set).not.toHaveBeenCalled();
  });

  it('/docs-reply from the job’s own channel is sent', async () => {
    const h = continueHarness(ended({ channel: 'C1' }));

    await expect(
      continueAgentJob(h.deps, { jobId: 'job_1', author: 'U1', prompt: 'hi', fromChannel: 'C1' }),
    ).resolves.toMatchObject({ ok: true });
    expect(h.sendMessage).toHaveBeenCalledTimes(1);
  });

  it("follow-up policy requester (the channel's, else FOLLOWUP_POLICY): only the requester may continue; others are told whom to ask", async () => {
    const h = continueHarness(ended({ requester: 'U1', channel: 'C7' }), { policy: 'requester' });

    const other = await continueAgentJob(h.deps, { jobId: 'job_1', author: 'U2', prompt: 'hi' });
    expect(h.deps.policyFor).toHaveBeenCalledWith('C7');
    expect(other).toMatchObject({
      ok: false,
      reason: 'not_allowed',
      message: expect.stringMatching(/^Only <@U1>, who started this job, can continue it/),
    });
    expect(h.sendMessage).not.toHaveBeenCalled();
    expect(h.redis.evalsha).toHaveBeenCalledTimes(1); // the lock is given back

    await expect(continueAgentJob(h.deps, { jobId: 'job_1', author: 'U1', prompt: 'hi' })).resolves.toMatchObject({
      ok: true,
    });
    expect(h.sendMessage).toHaveBeenCalledTimes(1);
  });

  it('context follows its readers: a job with context from C7 and CPRIV takes follow-ups only from members of both (and its requester); a failed check refuses', async () => {
    const h = continueHarness(ended({ requester: 'U1', channel: 'C7', contextFrom: 'C7,CPRIV' }));
    const members: Record<string, string[]> = { C7: ['U1', 'U2', 'U3'], CPRIV: ['U1', 'U3'] };
    const isMember = vi.fn(async (channel: string, user: string) => {
      if (user === 'U4') throw new Error('ratelimited');
      return members[channel]?.includes(user) ?? false;
    });
    const deps = { ...h.deps, conversations: { isMember } };
    const budget = vi.spyOn(deps.access, 'admitAgentCall');

    expect(await continueAgentJob(deps, { jobId: 'job_1', author: 'U2', prompt: 'quote everything' })).toMatchObject({
      ok: false,
      reason: 'not_a_reader',
      message: NOT_A_READER_TEXT,
    });
    expect(await continueAgentJob(deps, { jobId: 'job_1', author: 'U4', prompt: 'hi' })).toMatchObject({
      ok: false,
      reason: 'not_a_reader',
      message: READERS_CHECK_FAILED_TEXT,
    });
    expect(h.sendMessage).not.toHaveBeenCalled();
    expect(budget).not.toHaveBeenCalled(); // refused before the agent budget is touched
    expect(h.log.lines.some((l) => l.audit && l.reason === 'not_a_reader' && l.actor === 'U2')).toBe(true);

    await expect(continueAgentJob(deps, { jobId: 'job_1', author: 'U3', prompt: 'hi' })).resolves.toMatchObject({
      ok: true,
    });
    isMember.mockClear();
    await expect(continueAgentJob(deps, { jobId: 'job_1', author: 'U1', prompt: 'hi' })).resolves.toMatchObject({
      ok: true,
    });
    expect(isMember).not.toHaveBeenCalled(); // the requester read them all
    await continueAgentJob(deps, { jobId: 'job_1', author: 'U3', prompt: 'hi' });
    expect(isMember.mock.calls.map(([c]) => c)).toEqual(['CPRIV']); // the job's own channel is where the follow-up comes from
    expect(h.sendMessage).toHaveBeenCalledTimes(3);
    budget.mockRestore();
  });

  it('a job with context from other conversations and no membership directory takes follow-ups from its requester only', async () => {
    const h = continueHarness(ended({ requester: 'U1', contextFrom: 'CPRIV' }));
    expect(await continueAgentJob(h.deps, { jobId: 'job_1', author: 'U2', prompt: 'hi' })).toMatchObject({
      ok: false,
      reason: 'not_a_reader',
    });
    expect(h.sendMessage).not.toHaveBeenCalled();
  });

  it('the API no longer knows the job (404): unknown job, no new cycle', async () => {
    const h = continueHarness(ended());
    h.sendMessage.mockRejectedValueOnce(new DocsApiNotFoundError('job not found'));

    const res = await continueAgentJob(h.deps, { jobId: 'job_1', author: 'U1', prompt: 'hi' });

    expect(res).toEqual({ ok: false, reason: 'unknown_job', message: unknownJobText('job_1') });
    expect(h.store.beginCycle).not.toHaveBeenCalled();
    expect(h.pollQueue.add).not.toHaveBeenCalled();
  });

  it.each([
    [
      'rate limited',
      new DocsApiRateLimitedError(undefined),
      'Your follow-up was not sent. The docs service is rate limiting us right now; try again in 1m.',
    ],
    [
      'unauthorized',
      new DocsApiUnauthorizedError(),
      "Your follow-up was not sent. The bot's API key was rejected by the docs service; tell the admin who installed this bot.",
    ],
    [
      'server error',
      new DocsApiServerError(503),
      'Your follow-up was not sent. The docs service failed; try again in a minute.',
    ],
  ])('other docs API failures (%s): one sentence, no new cycle', async (_name, err, message) => {
    const h = continueHarness(ended());
    h.sendMessage.mockRejectedValueOnce(err);

    const res = await continueAgentJob(h.deps, { jobId: 'job_1', author: 'U1', prompt: 'hi' });

    expect(res).toEqual({ ok: false, reason: 'docs_api', message });
    expect(h.store.beginCycle).not.toHaveBeenCalled();
    expect(h.pollQueue.add).not.toHaveBeenCalled();
    expect(h.redis.evalsha).toHaveBeenCalledTimes(1);
  });

  it('no answer from the docs API (network error): cannot tell whether it arrived; says so, no new cycle', async () => {
    const h = continueHarness(ended());
    h.sendMessage.mockRejectedValueOnce(new DocsApiNetworkError('timed out'));

    const res = await continueAgentJob(h.deps, { jobId: 'job_1', author: 'U1', prompt: 'hi' });

    expect(res).toEqual({ ok: false, reason: 'uncertain', message: UNCERTAIN_FOLLOWUP_TEXT });
    expect(UNCERTAIN_FOLLOWUP_TEXT).toContain("can't tell me whether it arrived");
    expect(h.store.beginCycle).not.toHaveBeenCalled();
  });

  it('a follow-up whose connection was refused was certainly not sent: says so plainly, and may be sent again', async () => {
    const h = continueHarness(ended());
    const steps = fakeSteps({});
    h.sendMessage.mockRejectedValueOnce(new DocsApiNetworkError('ECONNREFUSED', { sent: false }));

    const res = await continueAgentJob(h.deps, { jobId: 'job_1', author: 'U1', prompt: 'hi' }, steps);

    expect(res).toEqual({
      ok: false,
      reason: 'docs_api',
      message: 'Your follow-up was not sent. The docs service could not be reached; try again in a minute.',
    });
    expect(steps.progress.sent).toBeUndefined(); // not "sending": a retry sends it, never "can't tell"
    expect(h.store.beginCycle).not.toHaveBeenCalled();
  });

  // BUG (wording, follow-up.ts UNCERTAIN_FOLLOWUP_TEXT): also used for a request that merely timed
  // out, where it tells the person "I was restarted while I was sending your follow-up".
  it('a timed-out follow-up does not claim the bot was restarted', async () => {
    const h = continueHarness(ended());
    h.sendMessage.mockRejectedValueOnce(new DocsApiNetworkError('timed out'));

    const res = await continueAgentJob(h.deps, { jobId: 'job_1', author: 'U1', prompt: 'hi' });

    expect(res).toMatchObject({ reason: 'uncertain', message: expect.not.stringContaining('I was restarted') });
  });

  it('a retry after a crash while the follow-up was being sent never sends it twice', async () => {
    const h = continueHarness(ended());
    const steps = fakeSteps({ sent: 'sending', fromCycle: 0, interrupted: false });

    const res = await continueAgentJob(h.deps, { jobId: 'job_1', author: 'U1', prompt: 'hi' }, steps);

    expect(res).toEqual({ ok: false, reason: 'uncertain', message: UNCERTAIN_FOLLOWUP_TEXT });
    expect(h.sendMessage).not.toHaveBeenCalled();
  });

  it('a retry after a crash once it was sent only begins the cycle it was meant for', async () => {
    const h = continueHarness(ended({ cycle: 0 }));
    const steps = fakeSteps({ sent: 'done', fromCycle: 0, interrupted: true });

    const res = await continueAgentJob(h.deps, { jobId: 'job_1', author: 'U2', prompt: 'hi' }, steps);

    expect(res).toMatchObject({ ok: true, cycle: 1, interrupted: true });
    expect(h.sendMessage).not.toHaveBeenCalled();
    expect(h.store.beginCycle).toHaveBeenCalledWith(
      'job_1',
      'U2',
      NOW,
      expect.stringContaining('interrupts the current run'),
      'U1',
      0,
    );
  });

  it.each([
    ['reading the record', (h: ContinueHarness) => h.store.get.mockRejectedValueOnce(redisDown())],
    ['taking the lock', (h: ContinueHarness) => h.redis.set.mockRejectedValueOnce(redisDown())],
  ])('Redis down when %s: "could not reach my storage", nothing sent', async (_name, breakIt) => {
    const h = continueHarness(ended());
    breakIt(h);

    const res = await continueAgentJob(h.deps, { jobId: 'job_1', author: 'U1', prompt: 'hi' });

    expect(res).toEqual({ ok: false, reason: 'internal', message: NOT_REACHED_STORAGE });
    expect(h.sendMessage).not.toHaveBeenCalled();
  });

  it('"sending" not yet on the replicas (a graceful failover under way): nothing sent, the mark taken back, the lock given back; the retry sends once', async () => {
    const h = continueHarness(ended());
    const failing = new Set(['follow-up']);
    const steps = replicatedSteps({}, failing);

    const req = { jobId: 'job_1', author: 'U1', prompt: 'hi' };
    await expect(continueAgentJob(h.deps, req, steps)).rejects.toBeInstanceOf(UnreplicatedStepError);
    expect(h.sendMessage).not.toHaveBeenCalled();
    expect(steps.progress.sent).toBeUndefined();
    expect(h.redis.evalsha).toHaveBeenCalledTimes(1);

    failing.clear();
    expect(await continueAgentJob(h.deps, req, steps)).toMatchObject({ ok: true, cycle: 1 });
    expect(h.sendMessage).toHaveBeenCalledTimes(1);
  });

  it.each([
    ['beginning the cycle', (h: ContinueHarness) => h.store.beginCycle.mockRejectedValueOnce(redisDown())],
    ['queueing the poller', (h: ContinueHarness) => h.pollQueue.add.mockRejectedValueOnce(redisDown())],
  ])(
    'Redis failing just after the follow-up was sent (%s), before the last try: thrown for the intake, whose retry begins the cycle once and watches it, sending nothing again',
    async (_name, breakIt) => {
      const h = continueHarness(ended({ cycle: 0 }));
      breakIt(h);
      const steps = fakeSteps({}, false);

      const req = { jobId: 'job_1', author: 'U1', prompt: 'hi' };
      await expect(continueAgentJob(h.deps, req, steps)).rejects.toBeInstanceOf(FollowUpUnrecordedError);
      expect(steps.progress).toMatchObject({ sent: 'done', fromCycle: 0 });
      expect(h.redis.evalsha).toHaveBeenCalledTimes(1); // the lock is given back

      const res = await continueAgentJob(h.deps, req, steps);
      expect(res).toMatchObject({ ok: true, cycle: 1 });
      expect(h.sendMessage).toHaveBeenCalledTimes(1);
      expect(h.store.beginCycle).toHaveBeenLastCalledWith('job_1', 'U1', NOW, '', '', 0);
      const poller = { jobId: pollJobId('job_1', 1), delay: FIRST_POLL_MS };
      expect(h.pollQueue.add).toHaveBeenLastCalledWith('poll', { agentJobId: 'job_1', cycle: 1, attempt: 0 }, poller);
      expect(h.log.errors()).toEqual([]);
    },
  );

  it('expectCycle: a follow-up for a cycle the job has left is refused before the budget; its own retry after sending is not', async () => {
    const h = continueHarness(ended({ cycle: 1 }));
    const admit = vi.spyOn(h.deps.access, 'admitAgentCall');
    const stale = await continueAgentJob(h.deps, { jobId: 'job_1', author: 'U1', prompt: 'hi', expectCycle: 0 });
    expect(stale).toMatchObject({ ok: false, reason: 'stale' });
    expect(admit).not.toHaveBeenCalled();
    expect(h.sendMessage).not.toHaveBeenCalled();

    // Sent at cycle 1, then the poller could not be queued: the retry finds the job at cycle 2 (its own).
    h.pollQueue.add.mockRejectedValueOnce(redisDown());
    const steps = fakeSteps({}, false);
    const req = { jobId: 'job_1', author: 'U1', prompt: 'hi', expectCycle: 1 };
    await expect(continueAgentJob(h.deps, req, steps)).rejects.toBeInstanceOf(FollowUpUnrecordedError);
    h.store.get.mockResolvedValue(ended({ cycle: 2 }));
    expect(await continueAgentJob(h.deps, req, steps)).toMatchObject({ ok: true });
    expect(h.sendMessage).toHaveBeenCalledTimes(1);
  });

  it('saving "sent" meets Redis failing over once: saved again at once, and the follow-up is recorded and watched (not "not sent")', async () => {
    const h = continueHarness(ended({ cycle: 0 }));
    const steps = fakeSteps({}, false);
    steps.save.mockImplementation(async (patch) => {
      const first = !steps.save.mock.calls.slice(0, -1).some(([p]) => p.sent === 'done');
      if (patch.sent === 'done' && first) throw new Error('Connection is closed.');
      Object.assign(steps.progress, patch);
    });

    const res = await continueAgentJob(h.deps, { jobId: 'job_1', author: 'U1', prompt: 'hi' }, steps);
    expect(res).toMatchObject({ ok: true, cycle: 1 });
    expect(h.sendMessage).toHaveBeenCalledTimes(1);
    expect(steps.progress.sent).toBe('done');
  });

  it('Redis down when saving the step before sending: "could not reach my storage", nothing sent', async () => {
    const h = continueHarness(ended());
    const steps = fakeSteps();
    steps.save.mockRejectedValueOnce(redisDown());

    const res = await continueAgentJob(h.deps, { jobId: 'job_1', author: 'U1', prompt: 'hi' }, steps);

    expect(res).toEqual({ ok: false, reason: 'internal', message: NOT_REACHED_STORAGE });
    expect(h.sendMessage).not.toHaveBeenCalled();
    expect(h.redis.evalsha).toHaveBeenCalledTimes(1);
  });

  it.each([
    ['beginning the cycle', (h: ContinueHarness) => h.store.beginCycle.mockRejectedValueOnce(redisDown())],
    ['queueing the poller', (h: ContinueHarness) => h.pollQueue.add.mockRejectedValueOnce(redisDown())],
  ])(
    'Redis down after the follow-up was sent (%s): says it was sent but is not tracked, logs an error',
    async (_name, breakIt) => {
      const h = continueHarness(ended());
      breakIt(h);

      const res = await continueAgentJob(h.deps, { jobId: 'job_1', author: 'U1', prompt: 'hi' });

      expect(res).toEqual({
        ok: false,
        reason: 'internal',
        message:
          'Your follow-up was sent to the agent, but I could not keep track of it (a storage problem on my side), so I may not announce when it ends.',
      });
      expect(h.sendMessage).toHaveBeenCalledTimes(1);
      expect(h.show).not.toHaveBeenCalled();
      expect(h.redis.evalsha).toHaveBeenCalledTimes(1); // the lock is given back
      expect(h.log.errors()).toMatchObject([{ msg: 'sent a follow-up but could not record it', jobId: 'job_1' }]);
    },
  );
});

// ---- /docs-reply's handler: the note in the job's thread and the answer to the person ---------

describe('/docs-reply: the note and the answer when Slack fails', () => {
  /** The agent-jobs handlers over a continue harness; `note` answers the note's chat.postMessage. */
  function replyHarness(note: () => Promise<unknown>, permalink: () => Promise<unknown>) {
    const h = continueHarness(ended({ cycle: 1, channel: 'C0DOCS', threadTs: '1700000000.000100' }));
    const handlers = new Map<string, (p: unknown, ctx: IntakeContext) => Promise<void>>();
    const intake = {
      on: (kind: { name: string }, fn: (p: unknown, ctx: IntakeContext) => Promise<void>) =>
        void handlers.set(kind.name, fn),
    };
    const postMessage = vi.fn(note);
    const postEphemeral = vi.fn(async (_a: { text: string }) => ({ ok: true }));
    const update = vi.fn(async () => undefined);
    const deps = {
      continue: h.deps,
      followups: { run: (_id: string, fn: () => Promise<unknown>) => fn() },
      store: { update },
      slack: {
        chat: { postMessage, postEphemeral, getPermalink: vi.fn(permalink) },
        conversations: { replies: vi.fn(async () => ({ ok: true, messages: [] })) },
      },
      logger: h.log.logger,
    } as unknown as AgentJobsHandlerDeps;
    registerHandlers(intake as never, deps);
    const steps = fakeSteps({}, false);
    const ctx = Object.assign(steps, {
      jobId: 'act-1',
      requestId: 'r',
      receivedAt: NOW,
      log: h.log.logger,
    }) as unknown as IntakeContext;
    const reply = () =>
      handlers.get(INTAKE.reply.name)!(
        { jobId: 'job_1', raw: 'Also add a Go example', user: 'U2', channel: 'C0DOCS', via: 'form' },
        ctx,
      );
    const told = () => postEphemeral.mock.calls.map(([a]) => a.text);
    return { h, reply, told, postMessage, steps };
  }

  it('a note Slack refuses and a permalink it will not give: the follow-up stands, sent once; the person is told it went, one warn line', async () => {
    const r = replyHarness(
      async () => Promise.reject(slackPlatformError('is_archived')),
      async () => Promise.reject(slackPlatformError('internal_error')),
    );
    await r.reply();
    expect(r.h.sendMessage).toHaveBeenCalledTimes(1);
    expect(r.told()).toEqual(["Sent your follow-up to job `job_1`. I'll reply in its thread when the agent is done."]);
    expect(r.h.log.lines).toContainEqual(
      expect.objectContaining({ msg: 'could not post the /docs-reply note', level: 40 }),
    );
    expect(JSON.stringify(r.h.log.lines)).not.toContain('Go example');
  });

  it("a note whose 'posting' mark is not on the replicas: thrown, so the intake tries again; the retry does not send the follow-up twice", async () => {
    const r = replyHarness(
      async () => ({ ok: true, ts: '1700000200.000300' }),
      async () => ({ ok: true, permalink: 'https://acme.slack.com/archives/C0DOCS/p1700000000000100' }),
    );
    const confirm = vi.fn(async (what: string) => {
      if (what.endsWith(':note')) throw new UnreplicatedStepError('a replica left the primary a moment ago');
    });
    Object.assign(r.steps, { confirm });
    await expect(r.reply()).rejects.toBeInstanceOf(UnreplicatedStepError);
    expect(r.postMessage).not.toHaveBeenCalled();
    expect(r.told()).toEqual([]);
    confirm.mockImplementation(async () => undefined);
    await r.reply();
    expect(r.h.sendMessage).toHaveBeenCalledTimes(1);
    expect(r.postMessage).toHaveBeenCalledTimes(1);
    expect(r.told()).toEqual([
      "Sent your follow-up to job `job_1`. I'll reply in <https://acme.slack.com/archives/C0DOCS/p1700000000000100|its thread> when the agent is done.",
    ]);
  });
});
