/**
 * Migration 13: each sitemap of a site as a record (issue 30), designed with the change feed's log (issue 31) so
 * the two share one shape of history: a row per sync that read (or failed to read) a sitemap, keyed by the sync's
 * growing `seq`, written once (a settle run again after a crash writes the same rows). `sitemaps` gains the current
 * state: where the sitemap was found, what it is, its figures and findings from its last read, when it was first
 * seen, last read and last changed, and how many syncs in a row it has failed (`read_seq` is the last sync counted).
 * A sitemap no index lists any more is `vanished_at` (and a `vanished` read); read again, it is back.
 * `sites.lastmod_honesty` is what the site's last `done` sync measured of its lastmods (lib/inventory/lastmod-honesty.ts).
 */
export const sql = `
ALTER TABLE sitemaps
  ADD COLUMN found_via text,
  ADD COLUMN parent_url text,
  ADD COLUMN kind text,
  ADD COLUMN status text,
  ADD COLUMN failure jsonb,
  ADD COLUMN url_count integer NOT NULL DEFAULT 0,
  ADD COLUMN child_count integer NOT NULL DEFAULT 0,
  ADD COLUMN dropped_count integer NOT NULL DEFAULT 0,
  ADD COLUMN bytes bigint NOT NULL DEFAULT 0,
  ADD COLUMN findings jsonb NOT NULL DEFAULT '[]'::jsonb,
  ADD COLUMN first_seen_at timestamptz NOT NULL DEFAULT now(),
  ADD COLUMN last_read_at timestamptz,
  ADD COLUMN last_changed_at timestamptz,
  ADD COLUMN fail_streak integer NOT NULL DEFAULT 0,
  ADD COLUMN read_seq bigint NOT NULL DEFAULT 0,
  ADD COLUMN vanished_at timestamptz;

ALTER TABLE sites ADD COLUMN lastmod_honesty jsonb;

CREATE TABLE sitemap_reads (
  site_id text NOT NULL,
  sitemap_id integer NOT NULL,
  seq bigint NOT NULL,
  sync_id text NOT NULL,
  status text NOT NULL,
  url_count integer NOT NULL,
  bytes bigint NOT NULL,
  errors integer NOT NULL,
  warnings integer NOT NULL,
  notices integer NOT NULL,
  read_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (site_id, sitemap_id, seq)
);
`;
