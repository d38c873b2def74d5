import { Client } from '@upstash/qstash';
import type { QStashConfig } from '../../config/factory-config.js';
import { sliceTarget } from '../../inventory/sync-slices.js';
import type { SyncRuntime } from '../../inventory/sync-driver.js';
import type { JobStore } from '../../store/job-store.js';
import { createLogger } from '../../utils/logger.js';
import type { SliceDispatcher } from '../slice-dispatcher.js';
import { hostFlowControlKey, sliceDeduplicationId, SLICE_FAILED_ROUTE, SLICE_ROUTE, type SliceMessage } from './slice-message.js';

const log = createLogger('dispatch:qstash');

/**
 * Publishes a running sync's or discover job's next slice to QStash, which calls this deployment back
 * (`POST /api/factory/slice`, signed):
 * - the slice is numbered after the last one claimed, and its deduplication id is (sync or job, number), so asking
 *   twice publishes once, and a delivery QStash repeats finds its number claimed and runs nothing;
 * - the flow-control key is the site's host: at most `hostParallelism` slices of one host run at once;
 * - QStash retries a failed slice `retries` times with its backoff, then calls `POST /api/factory/slice-failed`, which
 *   ends the sync `failed` (a job: `stopped`) with the reason.
 * A publish that fails is logged, not thrown: the slice that asked has committed its work; the cron tick re-drives a
 * sync that made no progress for a lease, and a job's client continues it.
 */
export function qstashDispatcher(config: QStashConfig): SliceDispatcher {
  // devMode off: QSTASH_DEV would otherwise swap the configured API for a local development server.
  const client = new Client({ token: config.token, baseUrl: config.baseUrl, devMode: false, enableTelemetry: false });

  const publish = async (message: SliceMessage, rootUrl: string): Promise<void> => {
    const published = await client.publishJSON({
      url: `${config.publicUrl}${SLICE_ROUTE}`,
      body: message,
      deduplicationId: sliceDeduplicationId(message),
      retries: config.retries,
      failureCallback: `${config.publicUrl}${SLICE_FAILED_ROUTE}`,
      flowControl: { key: hostFlowControlKey(rootUrl), parallelism: config.hostParallelism },
    });
    log.debug({ event: 'slice_published', ...message, messageId: published.messageId, deduplicated: published.deduplicated ?? false }, 'slice published');
  };

  return {
    engine: 'qstash',
    continueSync: async (runtime: SyncRuntime, syncId: string) => {
      try {
        const target = await sliceTarget(runtime.db, syncId);
        if (target === null) return;
        await publish({ syncId, slice: target.slices + 1 }, target.rootUrl);
      } catch (error) {
        log.error({ event: 'slice_publish_failed', syncId, err: error }, 'the next slice could not be published: the cron tick re-drives the sync');
      }
    },
    continueJob: async (store: JobStore, jobId: string) => {
      try {
        const [slices, meta] = await Promise.all([store.lastSlice(jobId), store.getMeta(jobId)]);
        const hostUrl = meta.rootUrl ?? meta.sitemapUrls[0];
        if (hostUrl !== undefined) await publish({ jobId, slice: slices + 1 }, hostUrl);
      } catch (error) {
        log.error({ event: 'slice_publish_failed', jobId, err: error }, "the job's next slice could not be published: its client's next continue runs it");
      }
    },
    depth: async () => null,
    stop: async () => undefined,
  };
}
