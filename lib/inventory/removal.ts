import { z } from 'zod';
import type { InventoryDb } from './db.js';
import { BATCH_ROWS } from './apply-shard.js';

// One batch of at most 500 URLs the sync did not see: stamped removed, a history row each, counted on the sync.
const REMOVE_BATCH_SQL = `
WITH gone AS (
  SELECT url FROM urls
  WHERE site_id = $2 AND url > $3 AND removed_at IS NULL AND last_sync_id <> $1
    AND NOT (source_sitemap = ANY($4::text[]))
  ORDER BY url LIMIT ${BATCH_ROWS}
  FOR UPDATE
),
marked AS (
  UPDATE urls u SET removed_at = now(), changed_at = now()
  FROM gone WHERE u.site_id = $2 AND u.url = gone.url
  RETURNING u.url
),
hist AS (
  INSERT INTO url_history (site_id, url, sync_id, event) SELECT $2, url, $1, 'removed' FROM marked ORDER BY url
)
UPDATE syncs SET removed_count = removed_count + (SELECT count(*) FROM marked), updated_at = now()
WHERE sync_id = $1
RETURNING (SELECT count(*) FROM marked)::int AS removed, (SELECT max(url) FROM marked) AS last`;

const BatchSchema = z.object({ removed: z.number().int(), last: z.string().nullable() });

/**
 * Marks every live URL of the site that sync `syncId` did not see as removed (never deleted), 500 a transaction,
 * except the URLs of `kept` sitemaps (unchanged since the previous sync: not read, so their URLs were not seen).
 * Idempotent: a URL already removed is not touched again, so a crash half-way is finished by the next call.
 */
export async function removeUnseen(db: InventoryDb, sync: { syncId: string; siteId: string }, kept: string[] = []): Promise<number> {
  let total = 0;
  // Keyset over the primary key: each batch starts after the last URL of the one before, never from the top.
  let after = '';
  for (;;) {
    const [row] = await db.transaction((tx) => tx.query(REMOVE_BATCH_SQL, [sync.syncId, sync.siteId, after, kept]));
    const { removed, last } = BatchSchema.parse(row);
    total += removed;
    if (removed < BATCH_ROWS || last === null) return total;
    after = last;
  }
}
