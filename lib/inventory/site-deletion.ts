import { z } from 'zod';
import type { InventoryDb } from './db.js';
import { getSite, runningSyncRefusal } from './sites.js';

/** Rows removed per statement: each batch is a short transaction of its own, so a site of millions of URLs never holds one long lock. */
export const DELETE_BATCH_ROWS = 5_000;

/** What a deletion removed, by table. */
export interface SiteDeletion {
  siteId: string;
  deleted: true;
  rows: Record<string, number>;
}

// Children before parents (foreign keys): each statement deletes one batch of the site's rows and says how many.
const PURGE_STEPS: ReadonlyArray<{ table: string; sql: string }> = [
  { table: 'url_history', sql: 'DELETE FROM url_history WHERE id IN (SELECT id FROM url_history WHERE site_id = $1 LIMIT $2)' },
  {
    table: 'sitemap_validators',
    sql: 'DELETE FROM sitemap_validators WHERE (site_id, sitemap_key) IN (SELECT site_id, sitemap_key FROM sitemap_validators WHERE site_id = $1 LIMIT $2)',
  },
  {
    table: 'part_sightings',
    sql: 'DELETE FROM part_sightings WHERE (sync_id, sitemap_id, shard, part) IN (SELECT p.sync_id, p.sitemap_id, p.shard, p.part FROM part_sightings p JOIN syncs s ON s.sync_id = p.sync_id WHERE s.site_id = $1 LIMIT $2)',
  },
  {
    table: 'sync_drops',
    sql: 'DELETE FROM sync_drops WHERE (sync_id, url, sitemap_id) IN (SELECT d.sync_id, d.url, d.sitemap_id FROM sync_drops d JOIN syncs s ON s.sync_id = d.sync_id WHERE s.site_id = $1 LIMIT $2)',
  },
  {
    table: 'sync_parts',
    sql: 'DELETE FROM sync_parts WHERE (sync_id, shard, part) IN (SELECT p.sync_id, p.shard, p.part FROM sync_parts p JOIN syncs s ON s.sync_id = p.sync_id WHERE s.site_id = $1 LIMIT $2)',
  },
  {
    table: 'url_sitemaps',
    sql: 'DELETE FROM url_sitemaps WHERE (site_id, url, sitemap_id) IN (SELECT site_id, url, sitemap_id FROM url_sitemaps WHERE site_id = $1 LIMIT $2)',
  },
  { table: 'urls', sql: 'DELETE FROM urls WHERE (site_id, url) IN (SELECT site_id, url FROM urls WHERE site_id = $1 LIMIT $2)' },
  { table: 'sitemaps', sql: 'DELETE FROM sitemaps WHERE sitemap_id IN (SELECT sitemap_id FROM sitemaps WHERE site_id = $1 LIMIT $2)' },
  { table: 'syncs', sql: 'DELETE FROM syncs WHERE sync_id IN (SELECT sync_id FROM syncs WHERE site_id = $1 LIMIT $2)' },
];

const countOf = (rows: readonly Record<string, unknown>[]) =>
  z.coerce
    .number()
    .int()
    .parse(rows[0]?.n ?? 0);

/** Removes every row of a site marked deleted, batch by batch, the site row last; safe to run again after a crash. */
export async function purgeSite(db: InventoryDb, siteId: string): Promise<Record<string, number>> {
  const removed: Record<string, number> = {};
  for (const step of PURGE_STEPS) {
    let total = 0;
    for (;;) {
      const n = countOf(await db.query(`WITH gone AS (${step.sql} RETURNING 1) SELECT count(*)::int AS n FROM gone`, [siteId, DELETE_BATCH_ROWS]));
      total += n;
      if (n < DELETE_BATCH_ROWS) break;
    }
    removed[step.table] = total;
  }
  removed.sites = countOf(
    await db.query('WITH gone AS (DELETE FROM sites WHERE site_id = $1 AND deleted_at IS NOT NULL RETURNING 1) SELECT count(*)::int AS n FROM gone', [siteId]),
  );
  return removed;
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
     WHERE site_id = $1 AND deleted_at IS NULL AND NOT EXISTS (SELECT 1 FROM syncs WHERE site_id = $1 AND state = 'running') RETURNING site_id`,
    [siteId],
  );
  if (marked.length === 0) {
    const [row] = await db.query('SELECT deleted_at IS NOT NULL AS deleted FROM sites WHERE site_id = $1', [siteId]);
    // Unknown: 404. Live: a sync runs, 409. Already marked: a purge was cut short, and this one finishes it.
    if (row === undefined) await getSite(db, siteId);
    else if (row.deleted !== true) throw await runningSyncRefusal(db, siteId, 'deleted');
  }
  return { siteId, deleted: true, rows: await purgeSite(db, siteId) };
}
