// The rows of a site marked deleted, removed batch by batch: what a delete does, and a create of the id finishes.
import { z } from 'zod';
import type { InventoryDb } from './db.js';

/** Rows removed per statement: each batch is a short transaction of its own, so a site of millions of URLs never holds one long lock. */
export const DELETE_BATCH_ROWS = 5_000;

// Children before parents (foreign keys): each statement deletes one batch of the site's rows and says how many.
const PURGE_STEPS: ReadonlyArray<{ table: string; sql: string }> = [
  {
    table: 'sitemap_reads',
    sql: 'DELETE FROM sitemap_reads WHERE (site_id, sitemap_id, seq) IN (SELECT site_id, sitemap_id, seq FROM sitemap_reads WHERE site_id = $1 LIMIT $2)',
  },
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
