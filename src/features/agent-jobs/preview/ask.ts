/**
 * Asking for a run's preview, once: a place in the organization's line (5 a minute, shared by the
 * replicas; "queued" is shown while it waits), a claim so that no crash, redelivery or second
 * replica asks twice, then `POST /v1/project/preview/{projectId}`.
 */
import { isDocsApiError, type DocsApiError } from '../../../platform/docs-api/errors.js';
import { audit } from '../../../platform/audit.js';
import type { PreviewContext, PreviewStepResult } from './context.js';
import { type PreviewRecord, ASK_LEASE_MS } from './record.js';
import { showPreview, withdrawPreview, type Shown } from './show.js';

/** Codes that mean this key or plan gets no previews (401 key, 403 plan or scope, 404 project): the feature goes off. */
const PLAN_CODES: ReadonlySet<string> = new Set(['unauthorized', 'forbidden', 'not_found']);

/**
 * 429s in a row after which the thread says the preview could not be started: each takes a new
 * place in line (a window, ~1 minute), so 20 is about the build ceiling's 20 minutes.
 */
export const MAX_RATE_LIMITED = 20;

/** Backoff of a request the API failed (5xx, no answer), in ms: 5 s doubling, at most 2 minutes. */
export function askRetryDelayMs(tries: number): number {
  return Math.min(120_000, 5_000 * 2 ** Math.max(0, tries - 1));
}

/** Reschedules after a show that must be tried again, ends after one that can't be. */
export async function afterShow(
  ctx: PreviewContext,
  shown: Shown,
  done: PreviewStepResult,
): Promise<PreviewStepResult> {
  if (shown.ok) return done;
  if ('gone' in shown) return 'cannot-post';
  return ctx.reschedule(shown.retryInMs);
}

/**
 * The request phase of `(jobId, cycle)`: waits for its slot (showing "queued"), claims the request,
 * asks, records the answer and shows "Building a preview…". @returns the step's end when it ends
 * here; else reschedules (throws DelayedError).
 */
export async function askForPreview(ctx: PreviewContext): Promise<PreviewStepResult> {
  const { deps, job, data, preview } = ctx;
  // One place in line per attempt: tries and 429s each only grow, so their sum names the attempt.
  const member = `${job.jobId}:${data.cycle}:${data.tries + (data.rateLimited ?? 0)}`;
  const waitMs = await deps.slots.reserve(member);
  if (waitMs > 0) {
    // Shown once: an unchanged message is not sent again.
    const shown = await showPreview(ctx, { ...preview, stage: 'queued' });
    if (!shown.ok && 'gone' in shown) return 'cannot-post';
    return ctx.reschedule(waitMs);
  }
  if (!(await deps.previews.claimAsk(job.jobId, data.cycle))) {
    // Another run holds the claim (or asked already: the next run reads its record).
    return ctx.reschedule(ASK_LEASE_MS / 4);
  }
  let answer;
  try {
    answer = await deps.docsApi.forProject(job.projectId).requestPreview(preview.branch ?? '');
  } catch (err) {
    await deps.previews.releaseAsk(job.jobId, data.cycle);
    return askFailed(ctx, err);
  }
  // Counted and audited as soon as the API accepted, before any save a crash could cut short: no
  // crash loses the line, and a re-run asks (and audits) again only when its request really goes
  // out again (a crash before the record below was saved, once the claim's lease lapsed).
  deps.metrics?.previewRequested();
  if (data.cycle > 0) {
    // A rebuild: whoever sent the follow-up that changed the pull request triggered it.
    audit(ctx.log, {
      actor: job.cycleRequester,
      channel: job.channel,
      action: 'preview.rebuild',
      outcome: 'ok',
      jobId: job.jobId,
      cycle: data.cycle,
    });
  }
  const asked: PreviewRecord = {
    ...preview,
    stage: 'building',
    ...(answer.statusId ? { statusId: answer.statusId } : {}),
    ...(answer.previewUrl ? { previewUrl: answer.previewUrl } : {}),
    askedAt: deps.now(),
  };
  await deps.previews.save(asked);
  await deps.previews.markAsked(job.jobId, data.cycle);
  ctx.log.info({ statusId: answer.statusId }, 'asked for a preview of the pull request');
  if (!answer.statusId) return finishNoStatus(ctx, asked);
  const shown = await showPreview(ctx, asked);
  if (!shown.ok && 'gone' in shown) return 'cannot-post';
  return ctx.reschedule(deps.bounds.minMs, { polls: 0 });
}

/** An answer without a statusId: nothing to follow; the preview link is all there is. */
async function finishNoStatus(ctx: PreviewContext, asked: PreviewRecord): Promise<PreviewStepResult> {
  ctx.log.warn('the preview request was answered without a statusId; showing its link without watching the build');
  const shown = await showPreview(ctx, { ...asked, stage: 'ready', everReady: true });
  return afterShow(ctx, shown, 'ready');
}

/**
 * The request failed. A key or plan without previews turns them off for the project (one warning,
 * nothing in Slack); 429 takes a new place in line; 5xx, no answer and anything else are tried again
 * with backoff, and after the last try the thread says the preview could not be started.
 */
async function askFailed(ctx: PreviewContext, err: unknown): Promise<PreviewStepResult> {
  const { deps, job, data, log } = ctx;
  const code = isDocsApiError(err) ? err.code : 'unknown';
  if (PLAN_CODES.has(code)) {
    if (await deps.previews.turnOff(job.projectId, code))
      log.warn(
        { projectId: job.projectId, code, status: (err as DocsApiError).status },
        'the docs API refused previews for this project (plan or key); previews are off for it for a day',
      );
    await withdrawPreview(ctx);
    return 'off';
  }
  if (code === 'rate_limited') {
    const rateLimited = (data.rateLimited ?? 0) + 1;
    if (rateLimited < MAX_RATE_LIMITED) {
      log.info({ rateLimited }, 'the docs API refused the preview request (429); queued again');
      return ctx.reschedule(0, { rateLimited });
    }
    return giveUp(ctx, err, data.tries);
  }
  const tries = data.tries + 1;
  const maxTries = deps.maxTries ?? 5;
  if (tries < maxTries) {
    log.warn({ err, tries }, 'could not ask for a preview; will try again');
    return ctx.reschedule(askRetryDelayMs(tries), { tries });
  }
  return giveUp(ctx, err, tries);
}

/** After the last try: the thread says the preview could not be started (counted once the record says so). */
async function giveUp(ctx: PreviewContext, err: unknown, tries: number): Promise<PreviewStepResult> {
  ctx.log.error({ err, tries, rateLimited: ctx.data.rateLimited ?? 0 }, 'could not ask for a preview; giving up');
  const gaveUp: PreviewRecord = { ...ctx.preview, stage: 'not_started' };
  await ctx.deps.previews.save(gaveUp);
  ctx.deps.metrics?.previewFinished('not_started');
  const shown = await showPreview(ctx, gaveUp);
  return afterShow(ctx, shown, 'not-started');
}
