/**
 * Showing a preview: its one message in the job's thread (posted once, found again by its metadata
 * after a Redis loss, then edited in place) and its step on the status message's plan.
 */
import { createHash } from 'node:crypto';
import type { ChatPostMessageArguments } from '@slack/web-api';
import { classifySlackError } from '../../../platform/slack/errors.js';
import { postOnce } from '../../../platform/steps.js';
import { editRetryDelay } from '../poll/schedule.js';
import { previewMessage } from './blocks.js';
import type { PreviewContext } from './context.js';
import type { PreviewRecord } from './record.js';
import type { JobRecord } from '../store.js';

/** What showing did: shown (or nothing to change), wait and try again, or Slack refused for good. */
export type Shown = { ok: true } | { ok: false; retryInMs: number } | { ok: false; gone: true };

/** The metadata key of a job's preview message (postOnce): one message per job, across its runs. */
function previewMessageKey(jobId: string): string {
  return `preview:${jobId}`;
}

/**
 * A short digest of a message's JSON (SHA-1, base64url, 12 characters), kept in the record's
 * `shown`: a show whose message has the same fingerprint sends nothing to Slack. Not a security
 * measure; a collision would only skip one edit.
 */
function fingerprint(msg: unknown): string {
  return createHash('sha1').update(JSON.stringify(msg)).digest('base64url').slice(0, 12);
}

/**
 * Saves `next` as the preview's record and shows it: the message (posted the first time, else
 * edited, also when the "first" post finds the message posted before a crash; nothing sent when
 * it would not change), then the plan's step. A transient Slack failure
 * asks to be tried again (`retryInMs`); a place that is gone, or a permanent refusal, is one error line.
 * @throws Redis errors.
 */
export async function showPreview(ctx: PreviewContext, next: PreviewRecord): Promise<Shown> {
  const { deps, job, log } = ctx;
  ctx.preview = next;
  await deps.previews.save(next);
  const msg = previewMessage(next, deps.signer);
  const fp = fingerprint(msg);
  if (next.shown !== fp) {
    try {
      if (next.ts) {
        await deps.slack.chat.update({ channel: job.channel, ts: next.ts, text: msg.text, blocks: msg.blocks });
      } else {
        const steps = await deps.previews.messageSteps(job.jobId);
        const at = { channel: job.channel, thread_ts: job.threadTs, since: job.createdAt, lookFirst: true };
        // postOnce returns a message posted before (its ts in the steps, or found by its metadata)
        // as it is: one a crash cut off before its ts reached the record may show an older stage.
        let posted = false;
        const postMessage = (a: ChatPostMessageArguments) => {
          posted = true;
          return deps.slack.chat.postMessage(a);
        };
        const client = { ...deps.slack, chat: { postMessage } };
        next.ts = await postOnce(client, steps, { ...at, ...msg, key: previewMessageKey(job.jobId) });
        if (!posted)
          await deps.slack.chat.update({ channel: job.channel, ts: next.ts, text: msg.text, blocks: msg.blocks });
      }
    } catch (err) {
      const info = classifySlackError(err);
      if (info.kind === 'transient') {
        log.warn({ err, slackError: info.code }, 'could not show the preview; will try again');
        return { ok: false, retryInMs: 5_000 };
      }
      log.error({ slackError: info.code }, 'Slack refused the preview message for good; the preview is not shown');
      return { ok: false, gone: true };
    }
    next.shown = fp;
    await deps.previews.save(next);
  }
  return showPlan(ctx, next);
}

/** The plan's preview step on the status message (only while the record is on this run). */
async function showPlan(ctx: PreviewContext, next: PreviewRecord): Promise<Shown> {
  const { deps, job } = ctx;
  const fields = { preview: next.stage, ...(next.previewUrl ? { previewUrl: next.previewUrl } : {}) };
  if (!(await deps.jobs.updateIfCycle(job.jobId, next.cycle, fields))) return { ok: true };
  const { retryInMs } = await deps.status.show(job.jobId);
  return retryInMs === undefined ? { ok: true } : { ok: false, retryInMs: editRetryDelay(retryInMs) };
}

/**
 * Takes back a preview that only ever said "queued" (the plan turned out to have no previews:
 * nothing about them stays in Slack): deletes its message unless a build of the job was shown
 * ready (that message stays), and clears the plan's preview step of the run. A failure is one
 * warning. A message already gone (`message_not_found`: an earlier try deleted it, or a person
 * did) counts as deleted; one Slack refuses to delete for good is left be, its ts kept. Either way
 * the plan's step is still cleared.
 * @throws a transient Slack error or a Redis error (the step is run again, and takes it back then).
 */
export async function withdrawPreview(ctx: Pick<PreviewContext, 'deps' | 'job' | 'preview' | 'log'>): Promise<void> {
  const { deps, job, preview, log } = ctx;
  try {
    if (preview.ts && !preview.everReady && (await deletePreviewMessage(ctx, preview.ts))) {
      const { ts: _gone, shown: _shown, ...rest } = preview;
      await deps.previews.save(rest);
      await deps.previews.forgetMessage(job.jobId);
    }
    // null clears the hash field (toHash writes ''), so the plan shows no preview step for this run.
    const cleared = { preview: null, previewUrl: null } as unknown as Partial<JobRecord>;
    if (await deps.jobs.updateIfCycle(job.jobId, preview.cycle, cleared)) await deps.status.show(job.jobId);
  } catch (err) {
    // Slack or Redis trouble: the step fails and BullMQ runs it again (the message must not stay "queued").
    log.warn({ err }, 'could not take back the queued preview');
    if (classifySlackError(err).kind === 'transient') throw err;
  }
}

/**
 * Deletes the preview message `ts` of the job's thread. @returns true when it is gone (deleted now,
 * or already: Slack's `gone` codes, such as `message_not_found`); false when Slack refuses for good
 * (one warning). @throws a transient Slack error.
 */
async function deletePreviewMessage(ctx: Pick<PreviewContext, 'deps' | 'job' | 'log'>, ts: string): Promise<boolean> {
  try {
    await ctx.deps.slack.chat.delete({ channel: ctx.job.channel, ts });
    return true;
  } catch (err) {
    const { kind, code } = classifySlackError(err);
    if (kind === 'transient') throw err;
    ctx.log.warn({ err, slackError: code }, 'could not delete the queued preview message');
    return kind === 'gone';
  }
}
