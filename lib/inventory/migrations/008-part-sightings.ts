/**
 * Migration 8: sightings as one row per part. `part_sightings` holds, per (sync, shard, part, sitemap), the URLs that
 * part saw that sitemap list, written with the part's claim; a URL whose only sitemap lists it again is no longer
 * written at all (no membership stamp), so an unchanged URL costs its reads. The removal step reads a sync's sightings
 * once, set-based, and queues the memberships it drops in `sync_drops`, applied 500 a transaction. Both are a sync's
 * working state, deleted when it ends. Memberships stamped with a sync's `seq` (new ones, those of URLs listed by more
 * than one sitemap, and every one written before this migration) still count as that sync's sightings, so a sync
 * running across the upgrade loses none. Memberships are no longer rewritten by every sync: their pages are filled
 * whole (new pages; migration 3 left room for the stamps' updates).
 */
export const sql = `
ALTER TABLE url_sitemaps SET (fillfactor = 100);

CREATE TABLE part_sightings (
  sync_id text NOT NULL REFERENCES syncs (sync_id),
  sitemap_id integer NOT NULL,
  shard integer NOT NULL,
  part integer NOT NULL,
  urls text[] NOT NULL,
  PRIMARY KEY (sync_id, sitemap_id, shard, part)
);

CREATE TABLE sync_drops (
  sync_id text NOT NULL REFERENCES syncs (sync_id),
  url text NOT NULL,
  sitemap_id integer NOT NULL,
  PRIMARY KEY (sync_id, url, sitemap_id)
);
`;
