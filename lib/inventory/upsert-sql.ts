/**
 * One statement applies a batch (at most 500 deduplicated URLs) of sync $1 to site $2:
 * `old` reads the rows as they were, `up` upserts (an unchanged URL only gets its seen stamps),
 * `hist` appends one history row per changed field and per return, `member` stamps each (URL, sitemap) membership
 * with the sync's sequence number (DESIGN "Inventory": removal is decided per sitemap), and the last SELECT counts.
 * Parameters: $1 sync id, $2 site id, $3..$9 the batch's columns as arrays, $10/$11 its memberships (URL, sitemap id).
 */
export const UPSERT_BATCH_SQL = `
WITH input AS (
  SELECT * FROM unnest($3::text[], $4::text[], $5::text[], $6::float8[], $7::text[], $8::text[], $9::text[])
    AS t(url, lastmod, changefreq, priority, source, locale, path_prefix)
),
-- One primary-key probe per input row (LATERAL): a join would let the planner hash the whole site when its
-- statistics are stale (a table filled by the sync itself), turning each batch into a scan of every URL.
old AS MATERIALIZED (
  SELECT u.url, u.sitemap_lastmod, u.changefreq, u.priority, u.removed_at, u.last_sync_id
  FROM input i CROSS JOIN LATERAL (SELECT * FROM urls x WHERE x.site_id = $2 AND x.url = i.url LIMIT 1) u
),
up AS (
  INSERT INTO urls AS u (site_id, url, sitemap_lastmod, changefreq, priority, source_sitemap, locale, path_prefix,
                         first_seen_at, last_seen_at, sitemap_synced_at, changed_at, removed_at, last_sync_id)
  SELECT $2, i.url, i.lastmod, i.changefreq, i.priority, i.source, i.locale, i.path_prefix, now(), now(), now(), now(), NULL, $1
  FROM input i
  ON CONFLICT (site_id, url) DO UPDATE SET
    sitemap_lastmod = EXCLUDED.sitemap_lastmod,
    changefreq = EXCLUDED.changefreq,
    priority = EXCLUDED.priority,
    source_sitemap = EXCLUDED.source_sitemap,
    locale = EXCLUDED.locale,
    path_prefix = EXCLUDED.path_prefix,
    last_seen_at = EXCLUDED.last_seen_at,
    sitemap_synced_at = EXCLUDED.sitemap_synced_at,
    changed_at = CASE
      WHEN (u.sitemap_lastmod, u.changefreq, u.priority) IS DISTINCT FROM (EXCLUDED.sitemap_lastmod, EXCLUDED.changefreq, EXCLUDED.priority)
        OR u.removed_at IS NOT NULL THEN EXCLUDED.changed_at
      ELSE u.changed_at END,
    removed_at = NULL,
    last_sync_id = EXCLUDED.last_sync_id
  -- A URL this sync has already written (listed by two sitemaps) keeps what it was given first.
  WHERE u.last_sync_id IS DISTINCT FROM EXCLUDED.last_sync_id
  RETURNING u.url, (xmax = 0) AS inserted
),
diff AS (
  SELECT o.url, c.event, c.old_value, c.new_value
  FROM input i JOIN old o ON o.url = i.url
  CROSS JOIN LATERAL (VALUES
    ('returned', NULL::text, NULL::text, o.removed_at IS NOT NULL),
    ('lastmod', o.sitemap_lastmod, i.lastmod, o.sitemap_lastmod IS DISTINCT FROM i.lastmod),
    ('changefreq', o.changefreq, i.changefreq, o.changefreq IS DISTINCT FROM i.changefreq),
    ('priority', o.priority::text, i.priority::text, o.priority IS DISTINCT FROM i.priority)
  ) AS c(event, old_value, new_value, happened)
  WHERE c.happened AND o.last_sync_id IS DISTINCT FROM $1
),
member AS (
  INSERT INTO url_sitemaps AS m (site_id, url, sitemap_id, seen_seq)
  SELECT $2, t.url, t.sitemap_id, (SELECT seq FROM syncs WHERE sync_id = $1) FROM unnest($10::text[], $11::int[]) AS t(url, sitemap_id)
  ON CONFLICT (site_id, url, sitemap_id) DO UPDATE SET seen_seq = EXCLUDED.seen_seq
  WHERE m.seen_seq <> EXCLUDED.seen_seq
),
hist AS (
  INSERT INTO url_history (site_id, url, sync_id, event, old_value, new_value)
  SELECT $2, url, $1, event, old_value, new_value FROM diff ORDER BY url, event
  RETURNING event
)
SELECT
  (SELECT count(*) FROM up)::int AS seen,
  (SELECT count(*) FROM up WHERE inserted)::int AS added,
  (SELECT count(DISTINCT url) FROM diff WHERE event <> 'returned')::int AS changed,
  (SELECT count(*) FROM hist WHERE event = 'returned')::int AS returned
`;
