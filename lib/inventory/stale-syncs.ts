import { z } from 'zod';
import type { InventoryDb } from './db.js';
import { createLogger } from '../utils/logger.js';
import { isRunning } from './running-sync.js';

const log = createLogger('inventory:stale-syncs');

/** A running sync whose row has not moved for this long has lost its driver (a function cut off, a worker killed). */
export const STALE_SYNC_MS = 120_000;

/**
 * How often a driver moves its sync's row while a step runs: a queued slice may read for two minutes and then apply
 * its shards, and that step must not be taken for a lost one (a second driver would run beside it).
 */
export const SYNC_HEARTBEAT_MS = STALE_SYNC_MS / 4;

/** Running syncs whose row has not moved for STALE_SYNC_MS, the longest-still first, `exclude` left out. */
export async function staleSyncIds(db: InventoryDb, options: { limit?: number; exclude?: ReadonlySet<string> } = {}): Promise<string[]> {
  const exclude = options.exclude ?? new Set<string>();
  const limit = options.limit ?? null;
  const rows = await db.query(
    `SELECT sync_id AS "syncId" FROM syncs WHERE ${isRunning()} AND updated_at < now() - $1::double precision * interval '1 millisecond'
     ORDER BY updated_at LIMIT $2`,
    [STALE_SYNC_MS, limit === null ? null : limit + exclude.size],
  );
  const ids = rows.map((row) => z.string().parse(row.syncId)).filter((syncId) => !exclude.has(syncId));
  return limit === null ? ids : ids.slice(0, limit);
}

/**
 * Runs one step of a sync while moving its row every `everyMs`, so the step reads as alive however long it takes. A
 * beat that fails (a database blip) is logged and the next one tries again: the step itself is not stopped by it. One
 * beat at a time, and none left in flight once the step has ended.
 */
export async function withSyncHeartbeat<T>(db: InventoryDb, syncId: string, step: () => Promise<T>, everyMs = SYNC_HEARTBEAT_MS): Promise<T> {
  let beating: Promise<void> | null = null;
  const beat = async (): Promise<void> => {
    try {
      await db.query(`UPDATE syncs SET updated_at = now() WHERE sync_id = $1 AND ${isRunning()}`, [syncId]);
    } catch (error) {
      log.warn({ event: 'sync_heartbeat_failed', syncId, err: error }, 'the sync row could not be moved: the next beat tries again');
    } finally {
      beating = null;
    }
  };
  const timer = setInterval(() => {
    beating ??= beat();
  }, everyMs);
  timer.unref();
  try {
    return await step();
  } finally {
    clearInterval(timer);
    await beating;
  }
}
