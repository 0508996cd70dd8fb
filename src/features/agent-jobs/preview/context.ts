/** What a run of the preview step works with: its dependencies, its job's data and result, one run's context. */
import type { Job } from 'bullmq';
import type { DocsApiProjects } from '../../../platform/docs-api/client.js';
import type { Logger } from '../../../platform/logger.js';
import type { BotMetrics } from '../../../platform/metrics.js';
import type { PostOnceClient } from '../../../platform/steps.js';
import type { ValueSigner } from '../../../platform/slack/signed-value.js';
import type { WebClient } from '@slack/web-api';
import type { DurationHistory } from '../poll/durations.js';
import type { PollBounds } from '../poll/schedule.js';
import type { StatusPresenter } from '../status/index.js';
import type { JobRecord, JobStore } from '../store.js';
import type { PreviewRecord, PreviewStore } from './record.js';
import type { PreviewSlots } from './slots.js';

/** What the preview step needs; injected so tests drive it with fakes and a controlled clock. */
export interface PreviewStepDeps {
  jobs: Pick<JobStore, 'get' | 'updateIfCycle'>;
  previews: PreviewStore;
  slots: Pick<PreviewSlots, 'reserve' | 'spend' | 'release'>;
  /** Asks for and reads previews of the job's own project. */
  docsApi: DocsApiProjects<'requestPreview' | 'getUpdateStatus'>;
  /** Posts the preview message once (found again by its metadata), edits and deletes it. */
  slack: PostOnceClient & { chat: Pick<WebClient['chat'], 'postMessage' | 'update' | 'delete'> };
  /** Shows the preview step on the status message's plan. */
  status: Pick<StatusPresenter, 'show'>;
  /** Build durations per project (the status polls' learned schedule); absent: backoff only. */
  durations?: (projectId: string) => Pick<DurationHistory, 'plan' | 'record'>;
  /** Status polls: the first after `minMs`, no gap over `maxMs` (POLL_MIN/MAX_INTERVAL_MS). */
  bounds: PollBounds;
  /** Stop watching a build this long after it was asked for, in ms. @defaultValue {@link PREVIEW_CEILING_MS} */
  ceilingMs?: number;
  /** Tries of a request the API failed (5xx, no answer) before the thread says it could not start. @defaultValue 5 */
  maxTries?: number;
  signer: Pick<ValueSigner, 'sign'>;
  logger: Logger;
  metrics?: Pick<BotMetrics, 'previewRequested' | 'previewFinished'>;
  /** Clock in epoch ms. */
  now: () => number;
  random?: () => number;
}

/**
 * How long the bot watches a preview build before it says "taking longer than usual" (20 minutes):
 * the vendor's builds take minutes; one still queued after 20 waits on something the bot can't change.
 */
export const PREVIEW_CEILING_MS = 20 * 60_000;

/** Data of a preview step job (queue `preview-deployment`). */
export interface PreviewJobData {
  agentJobId: string;
  /** The run whose pull request is previewed. */
  cycle: number;
  /** When the run was seen completed (epoch ms): "time to ready" counts from it. */
  completedAt: number;
  /** Status polls so far. */
  polls: number;
  /** Requests the API failed so far (5xx, no answer); 429s are counted apart, in `rateLimited`. */
  tries: number;
  /** Requests the API refused with 429 so far (each takes a new place in line). @defaultValue 0 */
  rateLimited?: number;
}

/** How a preview step job ends (visible in BullMQ, handy for operators and tests). */
export type PreviewStepResult =
  | 'ready'
  | 'failed'
  | 'slow'
  | 'not-started'
  | 'uncertain'
  | 'off'
  | 'no-branch'
  | 'superseded'
  | 'unknown-job'
  | 'cannot-post';

/** The step job as the step sees it. */
export type PreviewJob = Pick<Job<PreviewJobData>, 'data' | 'updateData' | 'moveToDelayed'>;

/** One run of the step: the job's record, the preview's, and how to reschedule. */
export interface PreviewContext {
  deps: PreviewStepDeps;
  job: JobRecord;
  /** This run's preview record (a fresh one before the request). */
  preview: PreviewRecord;
  data: PreviewJobData;
  log: Logger;
  /** Saves `patch` into the job data, moves the job to the delayed set for `delayMs` (ms), throws DelayedError. */
  reschedule: (delayMs: number, patch?: Partial<PreviewJobData>) => Promise<never>;
}
