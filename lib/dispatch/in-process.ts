import { advanceSync, applyStopFor, type SyncRuntime } from '../inventory/sync-driver.js';
import { createLogger } from '../utils/logger.js';
import type { SliceDispatcher } from './slice-dispatcher.js';

const log = createLogger('dispatch:in-process');

/** Slice budget of a background advance: short, so a stop or a shutdown is answered within seconds. */
const BACKGROUND_BUDGET_MS = 5_000;

/**
 * Drives each sync it is given in this process, slice after slice, until it ends: `serve` on an embedded database,
 * which one process owns. Any other caller advancing the same sync at once is safe: shards are applied exactly once.
 */
export function inProcessDispatcher(): SliceDispatcher {
  const controller = new AbortController();
  const driving = new Map<string, Promise<void>>();

  const drive = async (runtime: SyncRuntime, syncId: string): Promise<void> => {
    const apply = applyStopFor(runtime.store, controller.signal);
    while (!controller.signal.aborted) {
      const sync = await advanceSync(runtime, syncId, { budgetMs: BACKGROUND_BUDGET_MS, signal: controller.signal, ...apply, workerId: 'background' });
      if (sync.state !== 'running') return;
    }
  };

  return {
    engine: 'in-process',
    continueSync: async (runtime, syncId) => {
      if (controller.signal.aborted || driving.has(syncId)) return;
      const work = drive(runtime, syncId)
        .catch((error: unknown) => {
          if (!controller.signal.aborted)
            log.error({ event: 'background_sync_failed', syncId, err: error }, 'background advance of a sync failed: it waits for the next caller');
        })
        .finally(() => driving.delete(syncId));
      driving.set(syncId, work);
    },
    depth: async () => driving.size,
    stop: async () => {
      controller.abort(new Error('background syncs stopped'));
      await Promise.all(driving.values());
    },
  };
}
