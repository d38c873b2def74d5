import { advanceSync, type SyncRuntime } from '../inventory/sync-driver.js';
import { createLogger } from '../utils/logger.js';

const log = createLogger('http:background-syncs');

/** Slice budget of a background advance: short, so a stop or a shutdown is answered within seconds. */
const BACKGROUND_BUDGET_MS = 5_000;

// Set only in a long-lived process (`serve`): a serverless function ends with its response, so there nothing
// runs in the background and the orchestrator or the console advances syncs.
let controller: AbortController | null = null;
const driving = new Map<string, Promise<void>>();

/** Lets this process advance the syncs it starts or is asked about until they end; `stop` aborts the slices in flight and waits. */
export function enableBackgroundSyncs(): { stop(): Promise<void> } {
  const own = new AbortController();
  controller = own;
  return {
    stop: async () => {
      own.abort(new Error('background syncs stopped'));
      if (controller === own) controller = null;
      await Promise.all(driving.values());
    },
  };
}

async function drive(runtime: SyncRuntime, syncId: string, signal: AbortSignal): Promise<void> {
  while (!signal.aborted) {
    const sync = await advanceSync(runtime, syncId, { budgetMs: BACKGROUND_BUDGET_MS, signal, workerId: 'background' });
    if (sync.state !== 'running') return;
  }
}

/**
 * Keeps advancing a running sync in the background when background syncs are enabled (a no-op otherwise). Any
 * caller advancing the same sync at once is safe: shards are applied exactly once whoever applies them.
 */
export function adoptSync(runtime: SyncRuntime, syncId: string): void {
  const signal = controller?.signal;
  if (!signal || driving.has(syncId)) return;
  const work = drive(runtime, syncId, signal)
    .catch((error: unknown) => {
      if (!signal.aborted) log.error({ event: 'background_sync_failed', syncId, err: error }, 'background advance of a sync failed: it waits for the next caller');
    })
    .finally(() => driving.delete(syncId));
  driving.set(syncId, work);
}
