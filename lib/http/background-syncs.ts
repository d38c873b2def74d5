import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { factoryConfig } from '../config/factory-config.js';
import { isFactoryError } from '../core/errors.js';
import { DEFAULT_DB_DIR } from '../inventory/open-db.js';
import type { SyncRuntime } from '../inventory/sync-driver.js';
import { sliceDispatcher, useSliceDispatcher } from '../dispatch/active-dispatcher.js';
import { inProcessDispatcher } from '../dispatch/in-process.js';
import { createLogger } from '../utils/logger.js';
import { inventoryDb, resetInventoryDb } from './inventory-context.js';
import { resetServiceStore, serviceContext } from './service.js';

const log = createLogger('http:background-syncs');

/** Makes this process drive the syncs it starts or is asked about until they end; `stop` aborts the slices in flight and waits. */
export function enableBackgroundSyncs(): { stop(): Promise<void> } {
  return useSliceDispatcher(inProcessDispatcher());
}

/** False when the inventory is an embedded database never created (no syncs, no sites): opening it would only create an empty one in the cwd. */
export function hasInventory(env: Record<string, string | undefined>): boolean {
  const { database } = factoryConfig(env);
  return database.type === 'postgres' || existsSync(join(database.dir ?? DEFAULT_DB_DIR, 'PG_VERSION'));
}

/**
 * Adopts every sync left `running` in the inventory (by a server that was killed, or one that is still alive: advancing a
 * sync from two processes is safe), so it goes on by itself instead of blocking new syncs of its site. Returns their
 * ids. A database or store that is misconfigured or unreachable is thrown (`config`, `store_unavailable`), the handles
 * closed first; another failure is logged and leaves the syncs to the next caller.
 */
export async function resumeRunningSyncs(env: Record<string, string | undefined> = process.env): Promise<string[]> {
  if (!hasInventory(env)) return [];
  try {
    const context = serviceContext(env);
    const db = await inventoryDb(env);
    const rows = await db.query('SELECT sync_id AS "syncId" FROM syncs WHERE state = \'running\' ORDER BY started_at');
    const syncIds = rows.map((row) => z.string().parse(row.syncId));
    if (syncIds.length === 0) return [];
    const runtime: SyncRuntime = { db, store: await context.store(), net: context.net };
    for (const syncId of syncIds) await sliceDispatcher().continueSync(runtime, syncId);
    log.info({ event: 'syncs_resumed', syncIds }, 'running syncs resumed');
    return syncIds;
  } catch (error) {
    await resetServiceStore();
    await resetInventoryDb();
    // A database or store that is misconfigured or down is the operator's to fix now; anything else (another process
    // holding the embedded database, say) leaves the syncs for a later caller and the server serving.
    if (isFactoryError(error) && (error.kind === 'config' || error.kind === 'store_unavailable')) throw error;
    log.error({ event: 'syncs_resume_failed', err: error }, 'running syncs could not be resumed: they wait for the next caller');
    return [];
  }
}
