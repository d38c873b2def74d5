// Column lists shared by the readers: snake_case in the table, camelCase in the API (validated by lib/inventory/schemas.ts).

/** `sites` columns as SiteSchema reads them. */
export const SITE_COLUMNS = `site_id AS "siteId", root_url AS "rootUrl", options, created_at AS "createdAt", updated_at AS "updatedAt",
  schedule_ms AS "schedule", next_sync_at AS "nextSyncAt"`;

/** `syncs` columns as SyncSchema reads them. */
export const SYNC_COLUMNS = `sync_id AS "syncId", site_id AS "siteId", job_id AS "jobId", state, started_at AS "startedAt",
  finished_at AS "finishedAt", updated_at AS "updatedAt", urls_found AS "urlsFound", shards_written AS "shardsWritten",
  shards_applied AS "shardsApplied", sitemaps_done AS "sitemapsDone", sitemaps_pending AS "sitemapsPending",
  seen_count AS "seen", new_count AS "new", changed_count AS "changed", returned_count AS "returned",
  removed_count AS "removed", filtered_count AS "filtered", unchanged_sitemaps AS "unchangedSitemaps", kept_count AS "kept",
  kept_unread_count AS "keptUnread", errors, message`;

/** `urls` columns as UrlRowSchema reads them. */
export const URL_COLUMNS = `url, sitemap_lastmod AS "sitemapLastmod", changefreq, priority, source_sitemap AS "sourceSitemap",
  locale, path_prefix AS "pathPrefix", first_seen_at AS "firstSeenAt", last_seen_at AS "lastSeenAt",
  sitemap_synced_at AS "sitemapSyncedAt", changed_at AS "changedAt", removed_at AS "removedAt", last_sync_id AS "lastSyncId"`;
