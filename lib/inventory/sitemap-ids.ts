import { z } from 'zod';
import type { Queryable } from './db.js';

const IdRowSchema = z.object({ id: z.coerce.number().int(), url: z.string() });

/**
 * The integer ids of a site's sitemaps (as the shard entries' `source` spells them), created when new, and each
 * stamped as read by sync `syncId` (`sitemaps.seen_seq`): the removal step trusts a sitemap's absence from an
 * index only when it knows which sitemaps this sync did read. One statement, whatever the number of sources; the
 * upsert returns the row even when it exists, so two workers resolving the same new sitemap both get its id.
 */
export async function resolveSitemapIds(db: Queryable, sync: { syncId: string; siteId: string }, sources: readonly string[]): Promise<Map<string, number>> {
  const distinct = [...new Set(sources)].sort();
  if (distinct.length === 0) return new Map();
  const rows = await db.query(
    `INSERT INTO sitemaps AS s (site_id, url, seen_seq)
     SELECT $1, src, (SELECT seq FROM syncs WHERE sync_id = $2) FROM unnest($3::text[]) AS t(src)
     ON CONFLICT (site_id, url) DO UPDATE SET seen_seq = EXCLUDED.seen_seq
     RETURNING s.sitemap_id AS id, s.url`,
    [sync.siteId, sync.syncId, distinct],
  );
  return new Map(rows.map((row) => IdRowSchema.parse(row)).map(({ id, url }) => [url, id]));
}
