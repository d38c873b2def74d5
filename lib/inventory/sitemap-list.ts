// A site's sitemaps as records, failing first, keyset-paginated; and one sitemap with the history of its reads.
import { z } from 'zod';
import type { InventoryDb } from './db.js';
import { pageLimitSchema } from './page-limit.js';
import { SitemapRecordSchema, type SitemapRecord } from './sitemap-records.js';
import { keysetCursor } from './keyset-cursor.js';
import { SitemapFormatSchema } from '../core/types.js';
import { SitemapStatusSchema } from '../factory/findings/index.js';

/** Largest page of a site's sitemaps. */
export const MAX_SITEMAP_PAGE = 1_000;
const DEFAULT_SITEMAP_PAGE = 100;
/** Reads of one sitemap given with it, newest first. */
const HISTORY_READS = 50;

/** Query of `GET /api/factory/sites/{siteId}/sitemaps`: filters by status and kind, `limit` and `cursor` page. */
export const SitemapListQuerySchema = z
  .object({
    status: SitemapStatusSchema.optional(),
    kind: SitemapFormatSchema.optional(),
    limit: pageLimitSchema(MAX_SITEMAP_PAGE).optional(),
    cursor: z.string().max(100).optional(),
  })
  .strict();
export type SitemapListQuery = z.infer<typeof SitemapListQuerySchema>;

export interface SitemapPage {
  sitemaps: SitemapRecord[];
  nextCursor: string | null;
}

// Failing first: failed, then with issues, then ok, then not yet recorded; by id within each.
const RANK = `CASE s.status WHEN 'failed' THEN 0 WHEN 'has_issues' THEN 1 WHEN 'ok' THEN 2 ELSE 3 END`;
const cursors = keysetCursor(z.tuple([z.number().int().min(0).max(3), z.number().int().nonnegative()]));

const RECORD_COLUMNS = `s.sitemap_id AS "sitemapId", s.url, s.found_via AS "foundVia", s.parent_url AS parent, s.kind, s.status, s.failure,
  s.url_count AS urls, s.child_count AS children, s.dropped_count AS dropped, s.bytes, s.findings, s.first_seen_at AS "firstSeenAt",
  s.last_read_at AS "lastReadAt", s.last_changed_at AS "lastChangedAt", s.fail_streak AS "failStreak", s.vanished_at AS "vanishedAt"`;

const PageRowSchema = SitemapRecordSchema.extend({ rank: z.coerce.number().int() });

/** A site's sitemaps, failing first; `status` and `kind` filter, `limit` (default 100) and `cursor` page. */
export async function listSitemapPage(db: InventoryDb, siteId: string, query: Partial<SitemapListQuery> = {}): Promise<SitemapPage> {
  const limit = query.limit ?? DEFAULT_SITEMAP_PAGE;
  const [afterRank, afterId] = query.cursor === undefined ? [-1, 0] : cursors.decode(query.cursor);
  const rows = await db.query(
    `SELECT ${RECORD_COLUMNS}, ${RANK} AS rank FROM sitemaps s
     WHERE s.site_id = $1 AND ($2::text IS NULL OR s.status = $2) AND ($3::text IS NULL OR s.kind = $3)
       AND (${RANK}, s.sitemap_id) > ($4::int, $5::int)
     ORDER BY ${RANK}, s.sitemap_id LIMIT $6`,
    [siteId, query.status ?? null, query.kind ?? null, afterRank, afterId, limit + 1],
  );
  const parsed = rows.map((row) => PageRowSchema.parse(row));
  const page = parsed.slice(0, limit);
  const last = page.at(-1);
  const nextCursor = parsed.length > limit && last ? cursors.encode([last.rank, last.sitemapId]) : null;
  return { sitemaps: page.map(({ rank: _rank, ...record }) => record), nextCursor };
}

/** One read of a sitemap: the sync, when, its status and figures, and how many findings of each severity. */
export const SitemapReadSchema = z.object({
  syncId: z.string(),
  readAt: z.coerce.date().transform((date) => date.toISOString()),
  /** A read's status, or `vanished`: the sync found no index listing it. */
  status: SitemapStatusSchema.or(z.literal('vanished')),
  urls: z.coerce.number().int(),
  bytes: z.coerce.number().int(),
  errors: z.coerce.number().int(),
  warnings: z.coerce.number().int(),
  notices: z.coerce.number().int(),
});
export type SitemapRead = z.infer<typeof SitemapReadSchema>;

/** One sitemap of a site, with its last reads (newest first), or null when the site has no such sitemap. */
export async function getSitemapRecord(db: InventoryDb, siteId: string, sitemapId: number): Promise<(SitemapRecord & { reads: SitemapRead[] }) | null> {
  const [row] = await db.query(`SELECT ${RECORD_COLUMNS} FROM sitemaps s WHERE s.site_id = $1 AND s.sitemap_id = $2`, [siteId, sitemapId]);
  if (row === undefined) return null;
  const reads = await db.query(
    `SELECT sync_id AS "syncId", read_at AS "readAt", status, url_count AS urls, bytes, errors, warnings, notices
     FROM sitemap_reads WHERE site_id = $1 AND sitemap_id = $2 ORDER BY seq DESC LIMIT $3`,
    [siteId, sitemapId, HISTORY_READS],
  );
  return { ...SitemapRecordSchema.parse(row), reads: reads.map((read) => SitemapReadSchema.parse(read)) };
}
