/**
 * One statement applies one part (at most 500 deduplicated URLs) of a shard of sync $1 to site $2, exactly once, in
 * one round trip. `claim` inserts the part's key (sync, shard $3, part $4 of $5) with its counters; a key already
 * there (the part is in, or another worker is applying it: the insert waits for that one's commit) claims nothing,
 * and every write below is gated on the claim, so the part writes nothing twice.
 *
 * `cur` reads each input URL's row and its memberships by key (two probes per row) and compares it: a new URL is
 * inserted, a changed or returned one (lastmod, changefreq, priority IS DISTINCT FROM, or `removed_at` set) or one
 * recorded under another sitemap is updated, and an unchanged one is not written at all. Each (URL, sitemap) the part
 * saw is recorded for the removal step once: a URL its own sitemap alone lists has no membership row (migration 9:
 * implicit, its `source_sitemap`), so a new one is recorded by its row, written by this sync; a membership of a URL more
 * than one sitemap lists is a row stamped with the sync's sequence number (so the part listing that URL second knows);
 * any other, the common case of an unchanged URL, goes into the part's `part_sightings` row for that sitemap (an array
 * of URLs). A URL this sync has already seen (a membership stamped this sync, its row written this sync, or, when this part
 * lists it first under a new sitemap, a sighting by its one known sitemap) keeps what it was given first and is not
 * counted again, unless its lastmod is newer (migration 12): then its facts replace the first listing's, compared again
 * with what the URL was before this sync (its history of this sync rewritten, the changed count corrected). Changes and
 * returns append to `url_history`.
 *
 * Parameters: $1 sync id, $2 site id, $3 shard, $4 part, $5 parts in the shard, $6 URLs the site filter dropped (part 0),
 * $7..$13 the part's columns as arrays, $14 each URL's sitemap id, $15/$16 its further memberships (URL, sitemap id)
 * when more than one sitemap of the shard lists it, $17 the URLs the site filter dropped (part 0): the live ones leave
 * the scope (`left_scope`, not removed), and an input URL that had left it enters it again (`entered_scope`, not
 * returned). Returns `applied`: 1 or 0.
 */
export const APPLY_PART_SQL = `
WITH input AS (
  SELECT * FROM unnest($7::text[], $8::text[], $9::text[], $10::float8[], $11::text[], $12::text[], $13::text[], $14::int[])
    AS t(url, lastmod, changefreq, priority, source, locale, path_prefix, sitemap_id)
),
extra AS MATERIALIZED (SELECT * FROM unnest($15::text[], $16::int[]) AS t(url, sitemap_id)),
-- Live URLs of the site its filter dropped from this part, probed by key.
leaving AS MATERIALIZED (
  SELECT x.url FROM urls x WHERE x.site_id = $2 AND x.url = ANY ($17::text[]) AND x.removed_at IS NULL
),
sync AS MATERIALIZED (SELECT seq, started_at FROM syncs WHERE sync_id = $1),
-- Primary-key probes per input row (LATERAL): a join would let the planner hash the whole site when its statistics
-- are stale (a table filled by the sync itself), turning each part into a scan of every URL.
cur AS MATERIALIZED (
  SELECT i.*, u.url IS NOT NULL AS known, u.sitemap_lastmod AS old_lastmod, u.changefreq AS old_changefreq,
    u.priority AS old_priority, u.removed_at IS NOT NULL AS was_removed, coalesce(u.out_of_scope, false) AS was_out_of_scope,
    u.source_sitemap AS old_source,
    coalesce(u.last_sync_id = $1, false) AS written_now, i.url IN (SELECT e.url FROM extra e) AS more_listed,
    coalesce(u.first_seen_at >= (SELECT started_at FROM sync), false) AS new_now
  FROM input i
  LEFT JOIN LATERAL (SELECT * FROM urls x WHERE x.site_id = $2 AND x.url = i.url LIMIT 1) u ON true
),
-- The memberships of the known URLs, probed by key the same way (a new URL has none). A live URL without rows has
-- one, implicit: the sitemap it is recorded under (migration 9).
members AS MATERIALIZED (
  SELECT c.url, c.sitemap_id, c.written_now, m.ids IS NULL AS implicit, coalesce(m.stamped, false) AS stamped,
    coalesce(m.ids, ARRAY[CASE WHEN c.old_source = c.source THEN c.sitemap_id
      ELSE (SELECT s.sitemap_id FROM sitemaps s WHERE s.site_id = $2 AND s.url = c.old_source) END]) AS ids
  FROM cur c CROSS JOIN LATERAL (
    SELECT array_agg(x.sitemap_id) AS ids, bool_or(x.seen_seq = (SELECT seq FROM sync)) AS stamped
    FROM url_sitemaps x WHERE x.site_id = $2 AND x.url = c.url
  ) m
  WHERE c.known AND (m.ids IS NOT NULL OR NOT c.was_removed)
),
-- Known under one other sitemap only, unstamped: that sitemap may have listed it earlier this sync without a write.
risky AS MATERIALIZED (
  SELECT ms.url, ms.ids[1] AS other FROM members ms
  WHERE NOT ms.stamped AND NOT ms.written_now AND cardinality(ms.ids) = 1 AND ms.ids[1] <> ms.sitemap_id
    AND NOT EXISTS (SELECT 1 FROM extra e WHERE e.url = ms.url AND e.sitemap_id = ms.ids[1])
),
prior AS MATERIALIZED (
  SELECT DISTINCT s.url FROM part_sightings p CROSS JOIN LATERAL unnest(p.urls) AS s(url)
  WHERE EXISTS (SELECT 1 FROM risky) AND p.sync_id = $1 AND p.sitemap_id IN (SELECT r.other FROM risky r)
    AND (p.sitemap_id, s.url) IN (SELECT r.other, r.url FROM risky r)
),
fate AS MATERIALIZED (
  SELECT c.*, s.seen_now, c.known AND NOT s.seen_now AS compared,
    c.known AND NOT s.seen_now AND (c.old_lastmod, c.old_changefreq, c.old_priority) IS DISTINCT FROM (c.lastmod, c.changefreq, c.priority) AS changed,
    c.known AND NOT s.seen_now AND c.was_removed AND NOT c.was_out_of_scope AS returned,
    c.known AND NOT s.seen_now AND c.was_out_of_scope AS reentered,
    -- Written as rows when another sitemap lists it too (a URL new, or removed, has no membership to keep).
    c.more_listed OR (ms.ids IS NOT NULL AND ms.ids IS DISTINCT FROM ARRAY[c.sitemap_id]) AS stamp,
    -- An implicit membership becomes a row of its own, seen or not this sync as it was, beside the new ones.
    coalesce(ms.implicit AND ms.ids[1] <> c.sitemap_id, false)
      AND NOT EXISTS (SELECT 1 FROM extra e WHERE e.url = c.url AND e.sitemap_id = ms.ids[1]) AS carry, ms.ids[1] AS carried_id,
    -- Listed again this sync with a newer lastmod: its facts replace what the first listing gave (migration 12).
    CASE WHEN c.known AND s.seen_now AND c.lastmod IS DISTINCT FROM c.old_lastmod THEN cf_lastmod_newer(c.lastmod, c.old_lastmod)
      ELSE false END AS newer
  FROM cur c LEFT JOIN members ms ON ms.url = c.url LEFT JOIN prior p ON p.url = c.url
  CROSS JOIN LATERAL (SELECT coalesce(ms.stamped, false) OR c.written_now OR p.url IS NOT NULL AS seen_now) s
),
-- The newer listings, compared with what the URL was before this sync (the first old value of this sync's history
-- of each field, else the row's): \`delta\` corrects the count of changed URLs an earlier part made.
newer AS MATERIALIZED (
  SELECT n.*, n.now_changed::int - n.was_changed::int AS delta FROM (
    SELECT f.url, f.lastmod, f.changefreq, f.priority, f.new_now, b.was_changed, b.base_lastmod, b.base_changefreq,
      b.base_priority, NOT f.new_now AND (b.base_lastmod, b.base_changefreq, b.base_priority)
        IS DISTINCT FROM (f.lastmod, f.changefreq, f.priority) AS now_changed
    FROM fate f CROSS JOIN LATERAL (
      SELECT count(*) > 0 AS was_changed,
        CASE WHEN bool_or(h.event = 'lastmod') THEN (array_agg(h.old_value ORDER BY h.id) FILTER (WHERE h.event = 'lastmod'))[1]
          ELSE f.old_lastmod END AS base_lastmod,
        CASE WHEN bool_or(h.event = 'changefreq') THEN (array_agg(h.old_value ORDER BY h.id) FILTER (WHERE h.event = 'changefreq'))[1]
          ELSE f.old_changefreq END AS base_changefreq,
        CASE WHEN bool_or(h.event = 'priority') THEN (array_agg(h.old_value ORDER BY h.id) FILTER (WHERE h.event = 'priority'))[1]::float8
          ELSE f.old_priority END AS base_priority
      FROM url_history h
      WHERE h.site_id = $2 AND h.url = f.url AND h.sync_id = $1 AND h.event IN ('lastmod', 'changefreq', 'priority')
    ) b
    WHERE f.newer
  ) n
),
claim AS (
  INSERT INTO sync_parts (sync_id, shard, part, parts, rows, seen, new, changed, returned, filtered, left_scope, entered_scope)
  SELECT $1, $3, $4, $5, cardinality($7::text[]), count(*) FILTER (WHERE NOT f.seen_now), count(*) FILTER (WHERE NOT f.known),
    count(*) FILTER (WHERE f.changed) + (SELECT coalesce(sum(n.delta), 0) FROM newer n), count(*) FILTER (WHERE f.returned),
    $6, (SELECT count(*) FROM leaving),
    count(*) FILTER (WHERE f.reentered)
  FROM fate f
  ON CONFLICT DO NOTHING
  RETURNING 1 AS claimed
),
added AS (
  INSERT INTO urls (site_id, url, sitemap_lastmod, changefreq, priority, source_sitemap, locale, path_prefix,
                    first_seen_at, last_seen_at, sitemap_synced_at, changed_at, removed_at, last_sync_id)
  SELECT $2, f.url, f.lastmod, f.changefreq, f.priority, f.source, f.locale, f.path_prefix, now(), now(), now(), now(), NULL, $1
  FROM fate f WHERE NOT f.known AND EXISTS (SELECT 1 FROM claim)
  -- A row a concurrent part inserted first is returned with its source (the no-op update locks and returns it).
  ON CONFLICT (site_id, url) DO UPDATE SET last_sync_id = EXCLUDED.last_sync_id
  RETURNING url, source_sitemap AS source
),
-- New URLs a concurrent part inserted under another sitemap: both memberships are written as rows.
contested AS MATERIALIZED (
  SELECT a.url, (SELECT s.sitemap_id FROM sitemaps s WHERE s.site_id = $2 AND s.url = a.source) AS other
  FROM added a JOIN fate f ON f.url = a.url WHERE a.source <> f.source
),
-- The rows to write, probed by key (url = ANY): never a scan of the site, whatever the statistics say.
moved AS MATERIALIZED (
  SELECT f.* FROM fate f WHERE f.changed OR f.returned OR f.reentered OR (f.compared AND f.old_source IS DISTINCT FROM f.source)
),
updated AS (
  UPDATE urls u SET sitemap_lastmod = m.lastmod, changefreq = m.changefreq, priority = m.priority, source_sitemap = m.source,
    locale = m.locale, path_prefix = m.path_prefix, last_seen_at = now(), sitemap_synced_at = now(),
    changed_at = CASE WHEN m.changed OR m.returned OR m.reentered THEN now() ELSE u.changed_at END, removed_at = NULL,
    out_of_scope = false, last_sync_id = $1
  FROM moved m
  WHERE u.site_id = $2 AND u.url = ANY (ARRAY(SELECT url FROM moved)) AND u.url = m.url AND EXISTS (SELECT 1 FROM claim)
),
renewed AS (
  UPDATE urls u SET sitemap_lastmod = n.lastmod, changefreq = n.changefreq, priority = n.priority, last_seen_at = now(),
    changed_at = CASE WHEN n.now_changed THEN now() ELSE u.changed_at END, last_sync_id = $1
  FROM newer n
  WHERE u.site_id = $2 AND u.url = ANY (ARRAY(SELECT url FROM newer)) AND u.url = n.url AND EXISTS (SELECT 1 FROM claim)
),
-- This sync's history of a renewed URL is written again against what it was before the sync: only real moves stay.
unhistory AS (
  DELETE FROM url_history h USING newer n
  WHERE h.site_id = $2 AND h.url = n.url AND h.sync_id = $1 AND h.event IN ('lastmod', 'changefreq', 'priority')
    AND EXISTS (SELECT 1 FROM claim)
),
rehistory AS (
  INSERT INTO url_history (site_id, url, sync_id, event, old_value, new_value)
  SELECT $2, n.url, $1, e.event, e.old_value, e.new_value
  FROM newer n CROSS JOIN LATERAL (VALUES
    ('lastmod', n.base_lastmod, n.lastmod, n.base_lastmod IS DISTINCT FROM n.lastmod),
    ('changefreq', n.base_changefreq, n.changefreq, n.base_changefreq IS DISTINCT FROM n.changefreq),
    ('priority', n.base_priority::text, n.priority::text, n.base_priority IS DISTINCT FROM n.priority)
  ) AS e(event, old_value, new_value, happened)
  WHERE n.now_changed AND e.happened AND EXISTS (SELECT 1 FROM claim)
  ORDER BY n.url, e.event
),
-- Each listed (URL, sitemap) is recorded once: stamped in its membership row when the URL is listed by more than one
-- sitemap (every further membership in extra is), else as a sighting when its URL is known; a new URL listed by its
-- own sitemap alone writes no membership (implicit) and no sighting (its row, written by this sync, says it).
member AS (
  INSERT INTO url_sitemaps AS m (site_id, url, sitemap_id, seen_seq)
  SELECT $2, l.url, l.sitemap_id, l.seen_seq
  FROM (
    SELECT f.url, f.sitemap_id, (SELECT seq FROM sync) AS seen_seq FROM fate f
    WHERE f.stamp OR f.url IN (SELECT c.url FROM contested c)
    UNION ALL SELECT e.url, e.sitemap_id, (SELECT seq FROM sync) FROM extra e
    UNION ALL SELECT f.url, f.carried_id, CASE WHEN f.seen_now THEN (SELECT seq FROM sync) ELSE 0 END FROM fate f WHERE f.carry
    UNION ALL SELECT c.url, c.other, (SELECT seq FROM sync) FROM contested c
    WHERE NOT EXISTS (SELECT 1 FROM extra e WHERE e.url = c.url AND e.sitemap_id = c.other)
  ) l
  WHERE EXISTS (SELECT 1 FROM claim)
  -- Sequence numbers only grow: a stamp is never taken back by a row written unstamped.
  ON CONFLICT (site_id, url, sitemap_id) DO UPDATE SET seen_seq = EXCLUDED.seen_seq
  WHERE m.seen_seq < EXCLUDED.seen_seq
),
sighted AS (
  INSERT INTO part_sightings (sync_id, sitemap_id, shard, part, urls)
  SELECT $1, f.sitemap_id, $3, $4, array_agg(f.url) FROM fate f WHERE f.known AND NOT f.stamp AND EXISTS (SELECT 1 FROM claim) GROUP BY f.sitemap_id
),
hist AS (
  INSERT INTO url_history (site_id, url, sync_id, event, old_value, new_value)
  SELECT $2, f.url, $1, e.event, e.old_value, e.new_value
  FROM fate f CROSS JOIN LATERAL (VALUES
    ('returned', NULL::text, NULL::text, f.returned),
    ('entered_scope', NULL::text, NULL::text, f.reentered),
    ('lastmod', f.old_lastmod, f.lastmod, f.old_lastmod IS DISTINCT FROM f.lastmod),
    ('changefreq', f.old_changefreq, f.changefreq, f.old_changefreq IS DISTINCT FROM f.changefreq),
    ('priority', f.old_priority::text, f.priority::text, f.old_priority IS DISTINCT FROM f.priority)
  ) AS e(event, old_value, new_value, happened)
  WHERE (f.changed OR f.returned OR f.reentered) AND e.happened AND EXISTS (SELECT 1 FROM claim)
  ORDER BY f.url, e.event
),
-- The live URLs the site filter dropped ($17) leave the scope: not live any more, and not removed by the site.
left_scope AS (
  UPDATE urls u SET removed_at = now(), changed_at = now(), out_of_scope = true, last_sync_id = $1
  FROM leaving l WHERE u.site_id = $2 AND u.url = l.url AND EXISTS (SELECT 1 FROM claim)
  RETURNING u.url
),
left_hist AS (
  INSERT INTO url_history (site_id, url, sync_id, event) SELECT $2, url, $1, 'left_scope' FROM left_scope ORDER BY url
)
SELECT count(*)::int AS applied FROM claim
`;
