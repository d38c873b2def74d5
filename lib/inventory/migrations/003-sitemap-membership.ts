/**
 * Migration 3: which sitemaps list which URLs, so a URL is removed only when no sitemap lists it any more (DESIGN
 * "Inventory"). `sitemaps` gives each sitemap URL of a site a small integer id; `url_sitemaps` holds one row per
 * (site, URL, sitemap) with the sequence number of the last sync that saw that sitemap list that URL. Keyed by URL
 * first: the removal step walks a site's memberships in URL order and asks "does anything else still list it?" by key.
 * Each sync also keeps the failures its job reported (the first 1000) and how many URLs failed sitemaps kept.
 */
export const sql = `
CREATE TABLE sitemaps (
  sitemap_id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  site_id text NOT NULL REFERENCES sites (site_id),
  url text NOT NULL,
  -- The last sync (syncs.seq) that read this sitemap and got URLs from it.
  seen_seq bigint NOT NULL DEFAULT 0,
  UNIQUE (site_id, url)
);

CREATE TABLE url_sitemaps (
  site_id text NOT NULL,
  url text NOT NULL,
  sitemap_id integer NOT NULL,
  seen_seq bigint NOT NULL,
  PRIMARY KEY (site_id, url, sitemap_id)
);

-- Every sync rewrites each URL it sees (seen stamps) and its membership: room left in each page lets those updates
-- stay on the page without new index entries (HOT), when no indexed value changed.
ALTER TABLE urls SET (fillfactor = 70);
ALTER TABLE url_sitemaps SET (fillfactor = 70);

CREATE SEQUENCE sync_seq;
ALTER TABLE syncs ADD COLUMN seq bigint NOT NULL DEFAULT nextval('sync_seq');
ALTER TABLE syncs ADD COLUMN kept_unread_count bigint NOT NULL DEFAULT 0;
ALTER TABLE syncs ADD COLUMN failed_sitemaps jsonb NOT NULL DEFAULT '[]'::jsonb;

-- What the inventory held before: each live URL listed by the sitemap it was recorded under.
INSERT INTO sitemaps (site_id, url) SELECT DISTINCT site_id, source_sitemap FROM urls WHERE removed_at IS NULL;
INSERT INTO url_sitemaps (site_id, url, sitemap_id, seen_seq)
  SELECT u.site_id, u.url, s.sitemap_id, 0 FROM urls u JOIN sitemaps s ON s.site_id = u.site_id AND s.url = u.source_sitemap
  WHERE u.removed_at IS NULL;
`;
