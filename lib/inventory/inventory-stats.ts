import { z } from 'zod';
import type { Queryable } from './db.js';
import { parseRows } from './schemas.js';
import { FactoryError } from '../core/errors.js';

/** What the health route reports of the inventory: sites, running syncs and how long the oldest has run. */
export const InventoryStatsSchema = z.object({
  sites: z.coerce.number().int().nonnegative(),
  runningSyncs: z.coerce.number().int().nonnegative(),
  // Measured on the database's clock, where started_at was written: the caller's clock may disagree with it.
  oldestRunningAgeMs: z.coerce.number().int().nonnegative().nullable(),
});
export type InventoryStats = z.infer<typeof InventoryStatsSchema>;

/** Counts of sites and running syncs in one round trip (the partial unique index on running syncs keeps the second cheap). */
export async function inventoryStats(db: Queryable): Promise<InventoryStats> {
  const rows = await db.query(
    `SELECT (SELECT count(*) FROM sites) AS sites,
       count(*) AS "runningSyncs",
       floor(extract(epoch FROM (now() - min(started_at))) * 1000)::bigint AS "oldestRunningAgeMs"
     FROM syncs WHERE state = 'running'`,
  );
  const [stats] = parseRows(InventoryStatsSchema, rows);
  if (!stats) throw new FactoryError('internal', 'inventory stats: the aggregate returned no row');
  return stats;
}
