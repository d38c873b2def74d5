import { z } from 'zod';
import type { Queryable } from './db.js';

const IdRowSchema = z.object({ id: z.coerce.number().int(), url: z.string() });

/**
 * The integer ids of a site's sitemaps (as the shard entries' `source` spells them), created when new, and each
 * stamped as read by sync `syncId` (`sitemaps.seen_seq`): the removal step trusts a sitemap's absence from an
 * index only when it knows which sitemaps this sync did read. A read first: a sitemap spans many shards, and only the
 * first shard of it in a sync writes (and locks) its row, so workers on other shards of it never wait. The upsert
 * returns the row even when it exists, so two workers resolving the same new sitemap both get its id.
 */
export async function resolveSitemapIds(db: Queryable, sync: { syncId: string; siteId: string }, sources: readonly string[]): Promise<Map<string, number>> {
  const distinct = [...new Set(sources)].sort();
  if (distinct.length === 0) return new Map();
  const stamped = await db.query(
    `SELECT s.sitemap_id AS id, s.url FROM sitemaps s
     WHERE s.site_id = $1 AND s.url = ANY ($3::text[]) AND s.seen_seq = (SELECT seq FROM syncs WHERE sync_id = $2)`,
    [sync.siteId, sync.syncId, distinct],
  );
  if (stamped.length === distinct.length) return idMap(stamped);
  const rows = await db.query(
    `INSERT INTO sitemaps AS s (site_id, url, seen_seq)
     SELECT $1, src, (SELECT seq FROM syncs WHERE sync_id = $2) FROM unnest($3::text[]) AS t(src)
     ON CONFLICT (site_id, url) DO UPDATE SET seen_seq = EXCLUDED.seen_seq
     RETURNING s.sitemap_id AS id, s.url`,
    [sync.siteId, sync.syncId, distinct],
  );
  return idMap(rows);
}

function idMap(rows: readonly unknown[]): Map<string, number> {
  return new Map(rows.map((row) => IdRowSchema.parse(row)).map(({ id, url }) => [url, id]));
}
