import type { InventoryDb } from './db.js';
import { runningSyncConflict, siteHasRunningSync } from './running-sync.js';
import { purgeSite } from './site-purge.js';
import { getSite } from './sites.js';
import { RequestError } from '../core/errors.js';

/** What a deletion removed, by table. */
export interface SiteDeletion {
  siteId: string;
  deleted: true;
  rows: Record<string, number>;
}

/**
 * Deletes a site: refused with 409 while a sync of it runs; otherwise the site is marked deleted at once (gone from every
 * read, no sync can start) and its urls, url_history, url_sitemaps, sitemaps, syncs, sync_parts, part_sightings,
 * sync_drops and sitemap_validators rows are removed in batches of DELETE_BATCH_ROWS, the site row last. A purge cut
 * short is finished by the next delete or create of the id.
 */
export async function deleteSite(db: InventoryDb, siteId: string): Promise<SiteDeletion> {
  const marked = await db.query(
    `UPDATE sites SET deleted_at = now(), updated_at = now()
     WHERE site_id = $1 AND deleted_at IS NULL AND NOT ${siteHasRunningSync('$1')} RETURNING site_id`,
    [siteId],
  );
  if (marked.length === 0) {
    const [row] = await db.query('SELECT deleted_at IS NOT NULL AS deleted FROM sites WHERE site_id = $1', [siteId]);
    // Unknown: 404. Live: a sync runs, 409. Already marked: a purge was cut short, and this one finishes it.
    if (row === undefined) await getSite(db, siteId);
    else if (row.deleted !== true)
      throw (
        (await runningSyncConflict(db, siteId, 'it cannot be deleted')) ??
        new RequestError('conflict', `site ${siteId} was not deleted: its sync ended meanwhile, try again`)
      );
  }
  return { siteId, deleted: true, rows: await purgeSite(db, siteId) };
}
