/**
 * The preview step: one run of the `preview-deployment` step job (see {@link createPreviewStep}).
 * Like the poller, each run does one thing (wait for a slot, ask, or read the build's status once),
 * saves its progress with `job.updateData`, reschedules itself with `job.moveToDelayed` and throws
 * `DelayedError`.
 */
import { DelayedError } from 'bullmq';
import type { UpdateStatus } from '../../../platform/docs-api/deployments-schemas.js';
import { nextPollDelayMs } from '../poll/schedule.js';
import { afterShow, askForPreview, slotMember } from './ask.js';
import {
  PREVIEW_CEILING_MS,
  type PreviewContext,
  type PreviewJob,
  type PreviewJobData,
  type PreviewStepDeps,
  type PreviewStepResult,
} from './context.js';
import type { PreviewRecord } from './record.js';
import { showPreview, withdrawPreview } from './show.js';

/** The step's result for a preview that reached a final stage (shown again after a crash cut it short). */
const FINAL: Partial<Record<PreviewRecord['stage'], PreviewStepResult>> = {
  ready: 'ready',
  failed: 'failed',
  slow: 'slow',
  not_started: 'not-started',
  uncertain: 'uncertain',
};

/**
 * The processor of `preview-deployment`: previews the pull request of `(agentJobId, cycle)` once.
 * Nothing happens for a job whose project has previews off (DOCS_PREVIEWS, or the API refused
 * them), nor for a run with no branch; a newer run's preview supersedes an older one's.
 * @throws DelayedError to reschedule (expected); Redis errors make BullMQ retry the step.
 */
export function createPreviewStep(deps: PreviewStepDeps) {
  return async function previewStep(bull: PreviewJob, token?: string): Promise<PreviewStepResult> {
    const data = bull.data;
    const log = deps.logger.child({ jobId: data.agentJobId, cycle: data.cycle, preview: true });
    // A run that ends here without asking gives back the slot it may hold (it waited in line for it).
    const member = slotMember(data);
    const end = async (result: PreviewStepResult): Promise<PreviewStepResult> => {
      await deps.slots.release(member);
      return result;
    };
    const job = await deps.jobs.get(data.agentJobId);
    if (!job) return end('unknown-job');
    const saved = await deps.previews.get(data.agentJobId);
    if (job.cycle > data.cycle || (saved?.cycle ?? 0) > data.cycle) return end('superseded');
    if (await deps.previews.isOff(job.projectId)) {
      // A run that waited in line while another found the plan without previews: take its "queued" back.
      if (saved?.cycle === data.cycle && saved.stage === 'queued')
        await withdrawPreview({ deps, job, preview: saved, log });
      return end('off');
    }
    if (!job.branch) {
      log.info('the job reported no branch; no preview');
      return end('no-branch');
    }
    const reschedule = async (delayMs: number, patch: Partial<PreviewJobData> = {}): Promise<never> => {
      await bull.updateData({ ...bull.data, ...patch });
      await bull.moveToDelayed(Date.now() + Math.max(0, delayMs), token);
      throw new DelayedError();
    };
    // The message and its ts carry over from the job's earlier runs; the rest is this run's.
    const carried = saved
      ? { ...(saved.ts ? { ts: saved.ts } : {}), ...(saved.everReady ? { everReady: true } : {}) }
      : {};
    const preview: PreviewRecord =
      saved?.cycle === data.cycle
        ? saved
        : {
            jobId: job.jobId,
            cycle: data.cycle,
            stage: 'queued',
            branch: job.branch,
            completedAt: data.completedAt,
            ...carried,
            ...(saved?.shown ? { shown: saved.shown } : {}),
          };
    const ctx: PreviewContext = { deps, job, preview, data, log, reschedule };
    const final = FINAL[preview.stage];
    if (final) return end(await afterShow(ctx, await showPreview(ctx, preview), final));
    // The record holds the answer once asked (the claim keeps anyone else from asking meanwhile).
    return preview.statusId ? watchBuild(ctx) : askForPreview(ctx);
  };
}

/**
 * Reads the build's status once: ready or failed is shown (and learned from); a build past the
 * ceiling is "taking longer than usual"; else the next read is planned from the project's build
 * durations (or backoff), like the job poller's.
 */
async function watchBuild(ctx: PreviewContext): Promise<PreviewStepResult> {
  const { deps, job, preview, data, log } = ctx;
  const askedAt = preview.askedAt ?? deps.now();
  const elapsedMs = deps.now() - askedAt;
  if (elapsedMs >= (deps.ceilingMs ?? PREVIEW_CEILING_MS)) {
    log.warn({ elapsedMs }, 'the preview build is taking longer than usual; stopped watching it');
    const slow: PreviewRecord = { ...preview, stage: 'slow' };
    // Counted once saved: a re-run after a crash finds the final stage and counts nothing again.
    await deps.previews.save(slow);
    deps.metrics?.previewFinished('slow');
    return afterShow(ctx, await showPreview(ctx, slow), 'slow');
  }
  const history = deps.durations?.(`preview:${job.projectId}`);
  const next = async (): Promise<never> => {
    const plan = await history
      ?.plan()
      .catch((err: unknown) => void log.warn({ err }, 'could not read the build durations; backoff only'));
    const delay = nextPollDelayMs({ attempt: data.polls + 1, elapsedMs, plan }, deps.bounds, deps.random);
    return ctx.reschedule(delay, { polls: data.polls + 1 });
  };
  let status: UpdateStatus;
  try {
    status = await deps.docsApi.forProject(job.projectId).getUpdateStatus(preview.statusId ?? '');
  } catch (err) {
    log.warn({ err }, 'could not read the preview build; will try again');
    return next();
  }
  if (status.status !== 'success' && status.status !== 'failure') return next();
  const built = status.status === 'success';
  const endedAt = Date.parse(status.endedAt ?? '');
  await history
    ?.record((Number.isFinite(endedAt) && endedAt >= askedAt ? endedAt : deps.now()) - askedAt)
    .catch((err: unknown) => log.warn({ err }, 'could not record the build duration'));
  const done: PreviewRecord = {
    ...preview,
    stage: built ? 'ready' : 'failed',
    ...(status.commit?.filesChanged ? { files: status.commit.filesChanged } : {}),
    ...(status.screenshot ? { screenshot: status.screenshot } : {}),
    ...(status.summary ? { summary: status.summary } : {}),
    ...(!built ? { logs: status.logs ?? [] } : {}),
    ...(built ? { everReady: true } : {}),
  };
  await deps.previews.save(done);
  deps.metrics?.previewFinished(
    built ? 'built' : 'failed',
    built ? (deps.now() - (preview.completedAt ?? askedAt)) / 1000 : undefined,
  );
  log.info({ status: status.status, polls: data.polls + 1 }, 'the preview build ended');
  return afterShow(ctx, await showPreview(ctx, done), built ? 'ready' : 'failed');
}
