import { z } from 'zod';
import { pageLimitSchema } from './page-limit.js';
import type { InventoryDb } from './db.js';
import { SiteSummarySchema, parseRows, type SiteSummary } from './schemas.js';
import { SITE_COLUMNS } from './sql-columns.js';
import { getSyncsById } from './syncs.js';
import { keysetCursor } from './keyset-cursor.js';

/** Largest page of the site list. */
export const MAX_SITE_PAGE = 1_000;

/**
 * Query of `GET /api/factory/sites`: `q` keeps sites whose id or root URL contains it (any case), `sort=failing` puts
 * the sites with the most failing sitemaps first (else oldest first), `limit` pages, `cursor` continues after the page
 * before. An unknown parameter is refused (a misspelt `limit` must not list every site).
 */
export const SiteListQuerySchema = z
  .object({
    q: z
      .string()
      .trim()
      .max(200)
      .optional()
      .transform((q) => (q === '' ? undefined : q)),
    sort: z.enum(['created', 'failing']).optional(),
    limit: pageLimitSchema(MAX_SITE_PAGE).optional(),
    cursor: z.string().max(400).optional(),
  })
  .strict();
export type SiteListQuery = z.infer<typeof SiteListQuerySchema>;

/** A page of sites and the cursor of the next one (null at the end, and always without `limit`). */
export interface SitePage {
  sites: SiteSummary[];
  nextCursor: string | null;
}

// The list's order is (failing sitemaps, most first, with sort=failing; created_at; site_id); a cursor holds them of
// the last row, created_at at full (microsecond) precision, which a JavaScript Date would round: the next page starts
// exactly after it even if that site is deleted.
const cursors = keysetCursor(
  z.tuple([z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/), z.string().min(1).max(100), z.number().int().nonnegative()]),
);

const PageRowSchema = SiteSummarySchema.omit({ lastSync: true }).extend({ cursorAt: z.string(), lastSyncId: z.string().nullable() });

/**
 * Sites with their live URL count, failing sitemaps and last sync, oldest first (or most failing sitemaps first);
 * filtered by `q`, keyset-paginated by `limit` / `cursor`.
 */
export async function listSitePage(db: InventoryDb, query: Partial<SiteListQuery> = {}): Promise<SitePage> {
  const [afterAt, afterId, afterFailing] = query.cursor === undefined ? [null, null, 0] : cursors.decode(query.cursor);
  const failingFirst = query.sort === 'failing';
  // Sorted by failing sitemaps, the key's first part is their count negated (most first); else it is 0 for all.
  const rows = await db.query(
    `SELECT * FROM (
       SELECT ${SITE_COLUMNS},
         (SELECT count(*) FROM urls u WHERE u.site_id = s.site_id AND u.removed_at IS NULL)::int AS "urlCount",
         (SELECT count(*) FROM sitemaps m WHERE m.site_id = s.site_id AND m.status = 'failed')::int AS "failingSitemaps",
         (SELECT sync_id FROM syncs y WHERE y.site_id = s.site_id ORDER BY started_at DESC, sync_id LIMIT 1) AS "lastSyncId",
         to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS "cursorAt", created_at AS at
       FROM sites s
       WHERE s.deleted_at IS NULL
         AND ($1::text IS NULL OR strpos(lower(site_id), lower($1)) > 0 OR strpos(lower(root_url), lower($1)) > 0)) t
     WHERE $2::timestamptz IS NULL
        OR (CASE WHEN $5 THEN -t."failingSitemaps" ELSE 0 END, t.at, t."siteId") > (CASE WHEN $5 THEN -$6::int ELSE 0 END, $2::timestamptz, $3::text)
     ORDER BY CASE WHEN $5 THEN -t."failingSitemaps" ELSE 0 END, t.at, t."siteId" LIMIT $4`,
    [query.q ?? null, afterAt, afterId, query.limit === undefined ? null : query.limit + 1, failingFirst, afterFailing],
  );
  const parsed = parseRows(PageRowSchema, rows);
  const page = query.limit === undefined ? parsed : parsed.slice(0, query.limit);
  const last = page.at(-1);
  const nextCursor =
    query.limit !== undefined && parsed.length > query.limit && last ? cursors.encode([last.cursorAt, last.siteId, last.failingSitemaps]) : null;
  // The last syncs are read in one query through the syncs' own reader, which owns how their counters are summed; a
  // sync whose site was deleted since the page was read is no sync.
  const lastSyncs = await getSyncsById(
    db,
    page.flatMap(({ lastSyncId }) => (lastSyncId === null ? [] : [lastSyncId])),
  );
  const sites = page.map(({ cursorAt: _cursorAt, lastSyncId, ...site }) => ({
    ...site,
    lastSync: lastSyncId === null ? null : (lastSyncs.get(lastSyncId) ?? null),
  }));
  return { sites, nextCursor };
}
