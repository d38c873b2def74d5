/**
 * Migration 9: a URL listed by its own sitemap alone has no `url_sitemaps` row: its membership is implicit, the
 * sitemap it is recorded under (`urls.source_sitemap`), while it is live. A first sync writes no membership row for
 * such a URL (the row and its text-key index were most of a first sync's cost over the URL upsert). A URL gets rows,
 * one per sitemap, when a second sitemap lists it (lib/inventory/apply-part-sql.ts); from then on its rows alone
 * are its memberships, as every row written before this migration is. `url_memberships` is the one definition of
 * "which sitemaps list which URLs" the removal step reads: a row's sighting by sync (seq, id) is its `seen_seq` for
 * a row, and for an implicit membership the URL's row written by that sync (`written_in`, its `last_sync_id`): a
 * part writes a URL's row with the sitemap that listed it as its source.
 */
export const sql = `
CREATE VIEW url_memberships AS
SELECT m.site_id, m.url, m.sitemap_id, m.seen_seq, NULL::text AS written_in
FROM url_sitemaps m
UNION ALL
SELECT u.site_id, u.url, s.sitemap_id, NULL::bigint, u.last_sync_id
FROM urls u JOIN sitemaps s ON s.site_id = u.site_id AND s.url = u.source_sitemap
WHERE u.removed_at IS NULL AND NOT EXISTS (SELECT 1 FROM url_sitemaps m WHERE m.site_id = u.site_id AND m.url = u.url);
`;
