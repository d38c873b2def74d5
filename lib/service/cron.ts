import { CRON_SLICE_BUDGET_MS } from './api-limits.js';
import type { DispatcherSlot } from '../dispatch/dispatcher-slot.js';
import { sliceStep } from './function-step.js';
import { assertAuthorized, hasBearer } from './request.js';
import type { ServiceContext } from './service.js';
import { ConfigError, type FactoryConfig } from '../config/factory-config.js';
import { isFactoryError, RequestError } from '../core/errors.js';
import { DEFAULT_DUE_SYNC_LIMITS, startDueSyncs, type DueSyncsResult } from '../inventory/due-syncs.js';
import { advanceSync, type SyncRuntime } from '../inventory/sync-driver.js';
import { staleSyncIds } from '../inventory/stale-syncs.js';
import { claimNextSlice } from '../inventory/sync-slices.js';
import { createLogger } from '../utils/logger.js';

const log = createLogger('http:cron');

/** Slices a tick runs at once: each holds a sitemap parse and a few connections. */
const CRON_SLICE_CONCURRENCY = 4;

/** Syncs one tick advances at most (the ones it started, then the stalled ones, oldest first). */
const CRON_MAX_ADVANCES = 50;

/** A tick starts no new slice after this long, so every slice it starts ends inside the function's maxDuration. */
const CRON_START_WINDOW_MS = CRON_SLICE_BUDGET_MS;

/**
 * The cron route's auth: `Authorization: Bearer <CRON_SECRET>` as Vercel sends it. Without CRON_SECRET, the route is
 * refused on Vercel (`config`: a cron route anyone may call would start syncs at will) and elsewhere guarded like every
 * route (FACTORY_API_TOKEN when set).
 */
export function assertCronAuthorized(request: Request, config: FactoryConfig): void {
  if (config.cronSecret !== null) {
    if (!hasBearer(request, config.cronSecret)) throw new RequestError('unauthorized', 'missing or wrong bearer token (CRON_SECRET)');
    return;
  }
  if (config.onVercel) throw new ConfigError('CRON_SECRET', 'CRON_SECRET is not set: the cron route refuses to run on Vercel without it');
  assertAuthorized(request, config);
}

/** What a tick did: the syncs it started, the syncs it advanced by one slice (and their state after it), the due sites left. */
export interface CronSummary {
  started: DueSyncsResult['started'];
  advanced: Array<{ syncId: string; siteId: string; state: string }>;
  skipped: number;
  failed: Array<{ siteId?: string; syncId?: string; kind: string; message: string }>;
}

// A pool of CRON_SLICE_CONCURRENCY workers, each taking the next sync while the start window is open.
async function advanceEach(slices: DispatcherSlot, runtime: SyncRuntime, syncIds: string[], signal: AbortSignal, summary: CronSummary): Promise<void> {
  const queue = [...syncIds];
  const closesAt = Date.now() + CRON_START_WINDOW_MS;
  const worker = async () => {
    for (let syncId = queue.shift(); syncId !== undefined && Date.now() < closesAt && !signal.aborted; syncId = queue.shift()) {
      try {
        // The tick's slice takes the next number: a queued slice of that number (lost, or late) then runs nothing, and the
        // next one is published under a number no message has used.
        await claimNextSlice(runtime.db, syncId);
        const sync = await advanceSync(runtime, syncId, { ...sliceStep(CRON_SLICE_BUDGET_MS, signal), workerId: 'cron' });
        summary.advanced.push({ syncId, siteId: sync.siteId, state: sync.state });
        if (sync.state === 'running') await slices.current().continueSync(runtime, syncId);
      } catch (error) {
        const kind = isFactoryError(error) ? error.kind : 'internal';
        log.error({ event: 'cron_advance_failed', syncId, err: error }, 'a sync could not be advanced: the next tick tries again');
        summary.failed.push({ syncId, kind, message: error instanceof Error ? error.message : String(error) });
      }
    }
  };
  await Promise.all(Array.from({ length: CRON_SLICE_CONCURRENCY }, worker));
}

/**
 * One cron tick: starts the due syncs (`startDueSyncs`), then runs one slice of each sync it started and of each
 * running sync with no progress for STALE_SYNC_MS, a few at a time, each within its own budget, and hands each sync
 * still running to the slice engine (QStash: its next slice is published). A sync whose queued slice was lost is
 * thus picked up again within a lease and a tick.
 */
export async function cronTick(context: ServiceContext, signal: AbortSignal): Promise<CronSummary> {
  const runtime = await context.runtime();
  const due = await startDueSyncs(runtime, DEFAULT_DUE_SYNC_LIMITS);
  const summary: CronSummary = { started: due.started, advanced: [], skipped: due.skipped, failed: [...due.failed] };
  const startedIds = due.started.map((started) => started.syncId);
  const stale = await staleSyncIds(runtime.db, { exclude: new Set(startedIds), limit: Math.max(0, CRON_MAX_ADVANCES - startedIds.length) });
  await advanceEach(context.slices, runtime, [...startedIds, ...stale], signal, summary);
  log.info({ event: 'cron_tick', started: summary.started.length, advanced: summary.advanced.length, skipped: summary.skipped }, 'cron tick');
  return summary;
}
