/** Migration 1: sites, urls, url_history, syncs and the applied-shard keys (one SQL for Postgres and PGlite). */
export const sql = `
CREATE TABLE sites (
  site_id text PRIMARY KEY CHECK (site_id ~ '^[a-z0-9][a-z0-9._-]{0,99}$'),
  root_url text NOT NULL,
  options jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE syncs (
  sync_id text PRIMARY KEY,
  site_id text NOT NULL REFERENCES sites (site_id),
  job_id text NOT NULL,
  state text NOT NULL CHECK (state IN ('running', 'done', 'stopped', 'failed')),
  started_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz,
  updated_at timestamptz NOT NULL DEFAULT now(),
  urls_found bigint NOT NULL DEFAULT 0,
  shards_written integer NOT NULL DEFAULT 0,
  shards_applied integer NOT NULL DEFAULT 0,
  sitemaps_done integer NOT NULL DEFAULT 0,
  sitemaps_pending integer NOT NULL DEFAULT 0,
  seen_count bigint NOT NULL DEFAULT 0,
  new_count bigint NOT NULL DEFAULT 0,
  changed_count bigint NOT NULL DEFAULT 0,
  returned_count bigint NOT NULL DEFAULT 0,
  removed_count bigint NOT NULL DEFAULT 0,
  filtered_count bigint NOT NULL DEFAULT 0,
  errors jsonb NOT NULL DEFAULT '{}'::jsonb,
  message text
);
-- One running sync per site: a second start is refused by the database itself, whatever the caller.
CREATE UNIQUE INDEX syncs_one_running ON syncs (site_id) WHERE state = 'running';
CREATE INDEX syncs_by_site ON syncs (site_id, started_at DESC);

-- Exactly once: a (sync, shard, part) key is inserted in the transaction that applies the part.
CREATE TABLE sync_parts (
  sync_id text NOT NULL REFERENCES syncs (sync_id),
  shard integer NOT NULL,
  part integer NOT NULL,
  parts integer NOT NULL,
  rows integer NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (sync_id, shard, part)
);

CREATE TABLE urls (
  site_id text NOT NULL REFERENCES sites (site_id),
  url text NOT NULL,
  sitemap_lastmod text,
  changefreq text,
  priority double precision,
  source_sitemap text NOT NULL,
  locale text,
  path_prefix text,
  first_seen_at timestamptz NOT NULL,
  last_seen_at timestamptz NOT NULL,
  sitemap_synced_at timestamptz NOT NULL,
  changed_at timestamptz NOT NULL,
  removed_at timestamptz,
  last_sync_id text NOT NULL,
  PRIMARY KEY (site_id, url)
);
-- Keyset reads order by url inside a site; each filter has an index that keeps that order.
CREATE INDEX urls_by_prefix ON urls (site_id, path_prefix, url);
CREATE INDEX urls_by_locale ON urls (site_id, locale, url);
CREATE INDEX urls_by_changed ON urls (site_id, changed_at);
CREATE INDEX urls_removed ON urls (site_id, url) WHERE removed_at IS NOT NULL;

CREATE TABLE url_history (
  id bigserial PRIMARY KEY,
  site_id text NOT NULL,
  url text NOT NULL,
  sync_id text NOT NULL REFERENCES syncs (sync_id),
  event text NOT NULL CHECK (event IN ('lastmod', 'changefreq', 'priority', 'removed', 'returned')),
  old_value text,
  new_value text,
  recorded_at timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (site_id, url) REFERENCES urls (site_id, url)
);
CREATE INDEX url_history_by_url ON url_history (site_id, url, id);
`;
