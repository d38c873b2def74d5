import { z } from 'zod';
import type { InventoryDb } from './db.js';
import { isRunning } from './running-sync.js';

/**
 * Slice claims of a running sync (migration 7): a queued slice carries its number, and runs only if it can claim it.
 * Numbers only go up, so a delivery repeated, or overtaken by a re-drive, finds its number taken and runs nothing.
 */

/** What a queue needs to publish a running sync's next slice: the last slice claimed and the site's root URL (its host). */
export interface SliceTarget {
  slices: number;
  rootUrl: string;
}

const SliceTargetRowSchema = z.object({ slices: z.coerce.number().int().nonnegative(), rootUrl: z.string() });

/** The running sync's last claimed slice and its site's root URL, or null when the sync is not running (or unknown). */
export async function sliceTarget(db: InventoryDb, syncId: string): Promise<SliceTarget | null> {
  const rows = await db.query(`SELECT y.slices, s.root_url AS "rootUrl" FROM syncs y JOIN sites s USING (site_id) WHERE y.sync_id = $1 AND ${isRunning('y')}`, [
    syncId,
  ]);
  const [row] = rows;
  return row === undefined ? null : SliceTargetRowSchema.parse(row);
}

/** Claims slice `slice` of a running sync: true when no slice numbered `slice` or above was claimed before. */
export async function claimSlice(db: InventoryDb, syncId: string, slice: number): Promise<boolean> {
  const rows = await db.query(`UPDATE syncs SET slices = $2 WHERE sync_id = $1 AND ${isRunning()} AND slices < $2 RETURNING sync_id`, [syncId, slice]);
  return rows.length > 0;
}

/** Gives a claimed slice back (its run failed before it changed anything it cannot redo), so the queue's retry may claim it. */
export async function releaseSlice(db: InventoryDb, syncId: string, slice: number): Promise<void> {
  await db.query(`UPDATE syncs SET slices = $2 - 1 WHERE sync_id = $1 AND slices = $2`, [syncId, slice]);
}

/** Claims the next slice number of a running sync for a caller that runs it itself (the cron's re-drive); null when not running. */
export async function claimNextSlice(db: InventoryDb, syncId: string): Promise<number | null> {
  const rows = await db.query(`UPDATE syncs SET slices = slices + 1 WHERE sync_id = $1 AND ${isRunning()} RETURNING slices`, [syncId]);
  const [row] = rows;
  return row === undefined ? null : z.coerce.number().int().parse(row.slices);
}
