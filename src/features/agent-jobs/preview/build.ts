/** The previews as agent-jobs builds them from the platform: store, line, queue, worker. */
import type { Queue, Worker } from 'bullmq';
import type { Config } from '../../../platform/config.js';
import type { Logger } from '../../../platform/logger.js';
import type { Platform } from '../../../platform/runtime.js';
import { DurationHistory } from '../poll/durations.js';
import type { StatusPresenter } from '../status/index.js';
import type { JobStore } from '../store.js';
import type { PreviewJobData } from './context.js';
import { createPreviewQueue, watchPreview } from './queue.js';
import { PreviewStore } from './record.js';
import { PreviewSlots, SLOT_MARGIN_MS, SLOTS_PER_WINDOW } from './slots.js';
import { startPreviewWorker } from './worker.js';
import { asWorkOf } from '../work-of.js';

/** The running previews: how the poller asks for one, the worker, and shutdown. */
export interface Previews {
  store: PreviewStore;
  /** Absent when DOCS_PREVIEWS is off. */
  watch?: (agentJobId: string, cycle: number, completedAt: number) => Promise<void>;
  /** The `preview-deployment` queue (its depth is a metric); absent when DOCS_PREVIEWS is off. */
  queue?: Queue<PreviewJobData>;
  startWorker(): Worker | undefined;
  close(): Promise<void>;
}

/** Builds the previews (DOCS_PREVIEWS=off: the store only, for the fix button of earlier messages). */
export function buildPreviews(
  platform: Pick<
    Platform,
    'redis' | 'prefix' | 'queues' | 'docsApi' | 'slack' | 'signer' | 'metrics' | 'now' | 'installations'
  >,
  config: Pick<Config, 'DOCS_PREVIEWS' | 'DOCS_PREVIEWS_WINDOW_MS' | 'POLL_MIN_INTERVAL_MS' | 'POLL_MAX_INTERVAL_MS'>,
  parts: { jobs: JobStore; status: StatusPresenter; logger: Logger },
): Previews {
  const { redis, prefix, queues, docsApi, slack, signer, metrics, now } = platform;
  const store = new PreviewStore(redis, prefix);
  if (config.DOCS_PREVIEWS === 'off') return { store, startWorker: () => undefined, close: async () => {} };
  const queue: Queue<PreviewJobData> = createPreviewQueue(queues);
  const histories = new Map<string, DurationHistory>();
  const durations = (key: string): DurationHistory => {
    let h = histories.get(key);
    if (!h) histories.set(key, (h = new DurationHistory(redis, prefix, key, now)));
    return h;
  };
  return {
    store,
    queue,
    watch: (agentJobId, cycle, completedAt) => watchPreview(queue, agentJobId, cycle, completedAt),
    startWorker: () =>
      startPreviewWorker(
        queues,
        {
          jobs: parts.jobs,
          previews: store,
          slots: new PreviewSlots(redis, prefix, SLOTS_PER_WINDOW, config.DOCS_PREVIEWS_WINDOW_MS + SLOT_MARGIN_MS),
          docsApi,
          slack: slack.web,
          status: parts.status,
          durations,
          bounds: { minMs: config.POLL_MIN_INTERVAL_MS, maxMs: config.POLL_MAX_INTERVAL_MS },
          signer,
          logger: parts.logger.child({ area: 'previews' }),
          metrics,
          now,
        },
        asWorkOf(platform, parts.jobs),
      ),
    close: () => queue.close(),
  };
}
