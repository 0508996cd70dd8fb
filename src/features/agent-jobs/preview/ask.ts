/**
 * Asking for a run's preview, once: a place in the organization's line (5 a minute, shared by the
 * replicas; "queued" is shown while it waits), a claim so that no crash, redelivery or second
 * replica asks twice, then `POST /v1/project/preview/{projectId}`.
 */
import { isDocsApiError, type DocsApiError } from '../../../platform/docs-api/errors.js';
import { audit } from '../../../platform/audit.js';
import type { PreviewContext, PreviewJobData, PreviewStepResult } from './context.js';
import { type PreviewRecord, ASK_LEASE_MS } from './record.js';
import { showPreview, withdrawPreview, type Shown } from './show.js';

/** Codes that mean this key or plan gets no previews (401 key, 403 plan or scope, 404 project): the feature goes off. */
const PLAN_CODES: ReadonlySet<string> = new Set(['unauthorized', 'forbidden', 'not_found']);

/**
 * 429s in a row after which the thread says the preview could not be started: each takes a new
 * place in line (a window, ~1 minute), so 20 is about the build ceiling's 20 minutes.
 */
const MAX_RATE_LIMITED = 20;

/** Backoff of a request the API failed (5xx, no answer), in ms: 5 s doubling, at most 2 minutes. */
function askRetryDelayMs(tries: number): number {
  return Math.min(120_000, 5_000 * 2 ** Math.max(0, tries - 1));
}

/**
 * The rate-limit slot a run of the step reserves (`<jobId>:<cycle>:<attempt>`): one place in line
 * per attempt; tries and 429s each only grow, so their sum names the attempt.
 */
export function slotMember(data: Pick<PreviewJobData, 'agentJobId' | 'cycle' | 'tries' | 'rateLimited'>): string {
  return `${data.agentJobId}:${data.cycle}:${data.tries + (data.rateLimited ?? 0)}`;
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
  const member = slotMember(data);
  const waitMs = await deps.slots.reserve(member);
  if (waitMs > 0) {
    // Shown once: an unchanged message is not sent again.
    const shown = await showPreview(ctx, { ...preview, stage: 'queued' });
    if (!shown.ok && 'gone' in shown) {
      await deps.slots.release(member);
      return 'cannot-post';
    }
    return ctx.reschedule(waitMs);
  }
  const claim = await deps.previews.claimAsk(job.jobId, data.cycle);
  if (claim !== 'go') {
    // No request of this run goes out now: the slot is someone else's to use.
    await deps.slots.release(member);
    if (claim === 'uncertain') return lostRequest(ctx);
    // Another run is asking (or asked already: the next run reads its record).
    return ctx.reschedule(ASK_LEASE_MS / 4);
  }
  // From here the request counts against the limit, whatever becomes of it.
  await deps.slots.spend(member);
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

/**
 * A run that asked died inside the request (its lease lapsed before the answer was kept): the
 * request may have reached the docs API, which has no idempotency key, so it is not sent again (as
 * with an uncertain job start); the thread says so once, with the dashboard link.
 */
async function lostRequest(ctx: PreviewContext): Promise<PreviewStepResult> {
  ctx.log.error('the preview request was cut off by a crash and may have reached the docs API; not asking again');
  const lost: PreviewRecord = { ...ctx.preview, stage: 'uncertain' };
  // Counted once saved: a re-run finds the final stage and counts nothing again.
  await ctx.deps.previews.save(lost);
  ctx.deps.metrics?.previewFinished('uncertain');
  return afterShow(ctx, await showPreview(ctx, lost), 'uncertain');
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
