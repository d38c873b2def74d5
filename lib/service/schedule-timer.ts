import { setTimeout as sleep } from 'node:timers/promises';
import { hasInventory } from './background-syncs.js';
import type { ServiceContext } from './service.js';
import { DEFAULT_DUE_SYNC_LIMITS, startDueSyncs } from '../inventory/due-syncs.js';
import { staleSyncIds } from '../inventory/stale-syncs.js';
import type { SyncRuntime } from '../inventory/sync-driver.js';
import { createLogger } from '../utils/logger.js';

const log = createLogger('http:schedule-timer');

/** How often `serve` starts due syncs by itself: a schedule is at least 15 minutes, so 30 s late at most is on time. */
export const SCHEDULE_TICK_MS = 30_000;

// Running syncs whose row has not moved for a lease: their background drive failed, so this process takes them up again.
async function adoptStale(service: ServiceContext, runtime: SyncRuntime): Promise<void> {
  for (const syncId of await staleSyncIds(runtime.db)) await service.slices.current().continueSync(runtime, syncId);
}

// One tick; true when it started a full batch, so more may be due at once (a fleet's first tick after a pause).
async function tick(service: ServiceContext): Promise<boolean> {
  if (!hasInventory(service.config)) return false;
  const runtime = await service.runtime();
  const { started } = await startDueSyncs(runtime, DEFAULT_DUE_SYNC_LIMITS);
  for (const { syncId } of started) await service.slices.current().continueSync(runtime, syncId);
  await adoptStale(service, runtime);
  return started.length >= DEFAULT_DUE_SYNC_LIMITS.limit;
}

/**
 * Starts the due scheduled syncs now and every SCHEDULE_TICK_MS (ticks never overlap; a tick that started a full batch
 * is followed by the next at once), each driven in the background
 * (`adoptSync`), so a self-hosted `serve` keeps schedules without a cron. A failed tick is logged and the next one
 * tries again. `stop` waits for a tick in flight.
 */
export function startScheduleTimer(service: ServiceContext, everyMs = SCHEDULE_TICK_MS): { stop(): Promise<void> } {
  const stopping = new AbortController();
  const loop = (async () => {
    while (!stopping.signal.aborted) {
      const more = await tick(service).catch((error: unknown) => {
        log.error({ event: 'schedule_tick_failed', err: error }, 'due syncs could not be started: next tick retries');
        return false;
      });
      if (!more) await sleep(everyMs, undefined, { signal: stopping.signal }).catch(() => undefined);
    }
  })();
  return {
    stop: async () => {
      stopping.abort();
      await loop;
    },
  };
}
