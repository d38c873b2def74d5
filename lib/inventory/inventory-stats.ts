import { z } from 'zod';
import type { Queryable } from './db.js';
import { parseRows } from './schemas.js';
import { FactoryError } from '../core/errors.js';
import { DUE_SITE_SQL } from './schedule.js';
import { isRunning } from './running-sync.js';

const ageMs = z.coerce.number().int().nonnegative().nullable();

/**
 * What the health route reports of the inventory: sites (not deleted), running syncs and how long the oldest has run, due syncs
 * (scheduled, due, not running: waiting for a tick) and how long the oldest has waited.
 */
export const InventoryStatsSchema = z.object({
  sites: z.coerce.number().int().nonnegative(),
  runningSyncs: z.coerce.number().int().nonnegative(),
  // Ages are measured on the database's clock, where the times were written: the caller's clock may disagree with it.
  oldestRunningAgeMs: ageMs,
  dueSyncs: z.coerce.number().int().nonnegative(),
  oldestDueAgeMs: ageMs,
});
export type InventoryStats = z.infer<typeof InventoryStatsSchema>;

const AGE_MS = (column: string) => `floor(extract(epoch FROM (now() - min(${column}))) * 1000)::bigint`;

/**
 * Counts of sites, running syncs and due syncs in one round trip: the partial unique index on running syncs and the
 * `sites_due` index keep the aggregates cheap.
 */
export async function inventoryStats(db: Queryable): Promise<InventoryStats> {
  const rows = await db.query(
    `SELECT (SELECT count(*) FROM sites WHERE deleted_at IS NULL) AS sites, running.n AS "runningSyncs", running.age AS "oldestRunningAgeMs",
       due.n AS "dueSyncs", due.age AS "oldestDueAgeMs"
     FROM (SELECT count(*) AS n, ${AGE_MS('started_at')} AS age FROM syncs WHERE ${isRunning()}) running,
       (SELECT count(*) AS n, ${AGE_MS('next_sync_at')} AS age FROM sites s WHERE ${DUE_SITE_SQL}) due`,
  );
  const [stats] = parseRows(InventoryStatsSchema, rows);
  if (!stats) throw new FactoryError('internal', 'inventory stats: the aggregate returned no row');
  return stats;
}
