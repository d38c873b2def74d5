/**
 * Migration 2: incremental re-sync. Each site's sitemap validators from its last `done` sync (the next sync's job starts
 * from them), and per sync how many sitemaps were unchanged and how many of the site's URLs they kept.
 */
export const sql = `
CREATE TABLE sitemap_validators (
  site_id text NOT NULL REFERENCES sites (site_id),
  sitemap_key text NOT NULL,
  etag text,
  last_modified text,
  lastmod text,
  sync_id text NOT NULL REFERENCES syncs (sync_id),
  PRIMARY KEY (site_id, sitemap_key)
);

ALTER TABLE syncs ADD COLUMN unchanged_sitemaps integer NOT NULL DEFAULT 0;
ALTER TABLE syncs ADD COLUMN kept_count bigint NOT NULL DEFAULT 0;
`;
