/**
 * One statement applies one part (at most 500 deduplicated URLs) of a shard of sync $1 to site $2, exactly once, in
 * one round trip. `claim` inserts the part's key (sync, shard $3, part $4 of $5) with its counters; a key already
 * there (the part is in, or another worker is applying it: the insert waits for that one's commit) claims nothing,
 * and every write below is gated on the claim, so the part writes nothing twice.
 *
 * `cur` reads each input URL's row by primary key (one probe per row) and compares it: a new URL is inserted, a
 * changed or returned one (lastmod, changefreq, priority IS DISTINCT FROM, or `removed_at` set) or one recorded under
 * another sitemap is updated, and an unchanged one is not written at all: it costs the comparison. Each (URL, sitemap)
 * membership is stamped with the sync's sequence number (the sighting the removal step reads), written only when the
 * stamp moves. Changes and returns append to `url_history`. A URL this sync has already seen (a membership stamped with
 * its sequence number by an earlier part: listed by two sitemaps) keeps what it was given first and is not counted again.
 *
 * Parameters: $1 sync id, $2 site id, $3 shard, $4 part, $5 parts in the shard, $6 URLs the site filter dropped (part 0),
 * $7..$13 the part's columns as arrays, $14/$15 its memberships (URL, sitemap id). Returns `applied`: 1 or 0.
 */
export const APPLY_PART_SQL = `
WITH input AS (
  SELECT * FROM unnest($7::text[], $8::text[], $9::text[], $10::float8[], $11::text[], $12::text[], $13::text[])
    AS t(url, lastmod, changefreq, priority, source, locale, path_prefix)
),
sync AS MATERIALIZED (SELECT seq FROM syncs WHERE sync_id = $1),
-- One primary-key probe per input row (LATERAL): a join would let the planner hash the whole site when its
-- statistics are stale (a table filled by the sync itself), turning each part into a scan of every URL.
cur AS MATERIALIZED (
  SELECT i.*, u.url IS NOT NULL AS known, u.sitemap_lastmod AS old_lastmod, u.changefreq AS old_changefreq,
    u.priority AS old_priority, u.removed_at IS NOT NULL AS was_removed, u.source_sitemap AS old_source, s.url IS NOT NULL AS seen_now
  FROM input i
  LEFT JOIN LATERAL (SELECT * FROM urls x WHERE x.site_id = $2 AND x.url = i.url LIMIT 1) u ON true
  -- Probed per known row too (LIMIT 1): an EXISTS here would be hashed over every membership of the site.
  LEFT JOIN LATERAL (
    SELECT m.url FROM url_sitemaps m WHERE u.url IS NOT NULL AND m.site_id = $2 AND m.url = i.url AND m.seen_seq = (SELECT seq FROM sync) LIMIT 1
  ) s ON true
),
fate AS MATERIALIZED (
  SELECT c.*, c.known AND NOT c.seen_now AS compared,
    c.known AND NOT c.seen_now AND (c.old_lastmod, c.old_changefreq, c.old_priority) IS DISTINCT FROM (c.lastmod, c.changefreq, c.priority) AS changed,
    c.known AND NOT c.seen_now AND c.was_removed AS returned
  FROM cur c
),
claim AS (
  INSERT INTO sync_parts (sync_id, shard, part, parts, rows, seen, new, changed, returned, filtered)
  SELECT $1, $3, $4, $5, cardinality($7::text[]), count(*) FILTER (WHERE NOT f.seen_now), count(*) FILTER (WHERE NOT f.known),
    count(*) FILTER (WHERE f.changed), count(*) FILTER (WHERE f.returned), $6
  FROM fate f
  ON CONFLICT DO NOTHING
  RETURNING 1 AS claimed
),
added AS (
  INSERT INTO urls (site_id, url, sitemap_lastmod, changefreq, priority, source_sitemap, locale, path_prefix,
                    first_seen_at, last_seen_at, sitemap_synced_at, changed_at, removed_at, last_sync_id)
  SELECT $2, f.url, f.lastmod, f.changefreq, f.priority, f.source, f.locale, f.path_prefix, now(), now(), now(), now(), NULL, $1
  FROM fate f WHERE NOT f.known AND EXISTS (SELECT 1 FROM claim)
  ON CONFLICT (site_id, url) DO NOTHING
),
-- The rows to write, probed by key (url = ANY): never a scan of the site, whatever the statistics say.
moved AS MATERIALIZED (
  SELECT f.* FROM fate f WHERE f.changed OR f.returned OR (f.compared AND f.old_source IS DISTINCT FROM f.source)
),
updated AS (
  UPDATE urls u SET sitemap_lastmod = m.lastmod, changefreq = m.changefreq, priority = m.priority, source_sitemap = m.source,
    locale = m.locale, path_prefix = m.path_prefix, last_seen_at = now(), sitemap_synced_at = now(),
    changed_at = CASE WHEN m.changed OR m.returned THEN now() ELSE u.changed_at END, removed_at = NULL, last_sync_id = $1
  FROM moved m
  WHERE u.site_id = $2 AND u.url = ANY (ARRAY(SELECT url FROM moved)) AND u.url = m.url AND EXISTS (SELECT 1 FROM claim)
),
member AS (
  INSERT INTO url_sitemaps AS m (site_id, url, sitemap_id, seen_seq)
  SELECT $2, t.url, t.sitemap_id, (SELECT seq FROM sync) FROM unnest($14::text[], $15::int[]) AS t(url, sitemap_id)
  WHERE EXISTS (SELECT 1 FROM claim)
  ON CONFLICT (site_id, url, sitemap_id) DO UPDATE SET seen_seq = EXCLUDED.seen_seq
  WHERE m.seen_seq <> EXCLUDED.seen_seq
),
hist AS (
  INSERT INTO url_history (site_id, url, sync_id, event, old_value, new_value)
  SELECT $2, f.url, $1, e.event, e.old_value, e.new_value
  FROM fate f CROSS JOIN LATERAL (VALUES
    ('returned', NULL::text, NULL::text, f.was_removed),
    ('lastmod', f.old_lastmod, f.lastmod, f.old_lastmod IS DISTINCT FROM f.lastmod),
    ('changefreq', f.old_changefreq, f.changefreq, f.old_changefreq IS DISTINCT FROM f.changefreq),
    ('priority', f.old_priority::text, f.priority::text, f.old_priority IS DISTINCT FROM f.priority)
  ) AS e(event, old_value, new_value, happened)
  WHERE (f.changed OR f.returned) AND e.happened AND EXISTS (SELECT 1 FROM claim)
  ORDER BY f.url, e.event
)
SELECT count(*)::int AS applied FROM claim
`;
