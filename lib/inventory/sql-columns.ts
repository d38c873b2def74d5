// Column lists shared by the readers: snake_case in the table, camelCase in the API (validated by lib/inventory/schemas.ts).

/** `sites` columns as SiteSchema reads them. */
export const SITE_COLUMNS = `site_id AS "siteId", root_url AS "rootUrl", options, created_at AS "createdAt", updated_at AS "updatedAt",
  schedule_ms AS "schedule", next_sync_at AS "nextSyncAt", lastmod_honesty AS "lastmodHonesty"`;

/**
 * `syncs` with the counters its parts wrote (`sync_parts`, one row a part), summed: the only way to read a sync's
 * counters. Use it where `syncs` would stand, with an alias: `SELECT ${SYNC_COLUMNS} FROM ${syncsWithTotals('y')} WHERE ...`.
 * Filters on the sync's own columns reach the `syncs` scan; the sums are computed per sync row that is kept.
 */
export function syncsWithTotals(alias: string): string {
  return `(SELECT totals_s.*, totals_t.seen_count, totals_t.new_count, totals_t.changed_count, totals_t.returned_count, totals_t.filtered_count, totals_t.left_scope_count,
    totals_t.entered_scope_count, totals_t.shards_applied
  FROM syncs totals_s CROSS JOIN LATERAL (
    SELECT coalesce(sum(totals_g.seen), 0) AS seen_count, coalesce(sum(totals_g.new), 0) AS new_count, coalesce(sum(totals_g.changed), 0) AS changed_count,
      coalesce(sum(totals_g.returned), 0) AS returned_count, coalesce(sum(totals_g.filtered), 0) AS filtered_count,
      coalesce(sum(totals_g.left_scope), 0) AS left_scope_count, coalesce(sum(totals_g.entered_scope), 0) AS entered_scope_count,
      count(*) FILTER (WHERE totals_g.shard >= 0 AND totals_g.complete) AS shards_applied
    FROM (SELECT totals_p.shard, sum(totals_p.seen) AS seen, sum(totals_p.new) AS new, sum(totals_p.changed) AS changed, sum(totals_p.returned) AS returned,
            sum(totals_p.filtered) AS filtered, sum(totals_p.left_scope) AS left_scope, sum(totals_p.entered_scope) AS entered_scope,
            count(*) = max(totals_p.parts) AS complete
          FROM sync_parts totals_p WHERE totals_p.sync_id = totals_s.sync_id GROUP BY totals_p.shard) totals_g
  ) totals_t) ${alias}`;
}

/** `syncs` columns as SyncSchema reads them, over `syncsWithTotals` (the counters are not columns of `syncs`). */
export const SYNC_COLUMNS = `sync_id AS "syncId", site_id AS "siteId", job_id AS "jobId", state, started_at AS "startedAt",
  finished_at AS "finishedAt", updated_at AS "updatedAt", urls_found AS "urlsFound", shards_written AS "shardsWritten",
  shards_applied AS "shardsApplied", sitemaps_done AS "sitemapsDone", sitemaps_pending AS "sitemapsPending",
  seen_count AS "seen", new_count AS "new", changed_count AS "changed", returned_count AS "returned",
  removed_count AS "removed", filtered_count AS "filtered", left_scope_count AS "leftScope", entered_scope_count AS "enteredScope", unchanged_sitemaps AS "unchangedSitemaps", kept_count AS "kept",
  kept_unread_count AS "keptUnread", errors, message`;

/** `urls` columns as UrlRowSchema reads them. */
export const URL_COLUMNS = `url, sitemap_lastmod AS "sitemapLastmod", changefreq, priority, source_sitemap AS "sourceSitemap",
  locale, path_prefix AS "pathPrefix", first_seen_at AS "firstSeenAt", last_seen_at AS "lastSeenAt",
  sitemap_synced_at AS "sitemapSyncedAt", changed_at AS "changedAt", removed_at AS "removedAt", out_of_scope AS "outOfScope",
  last_sync_id AS "lastSyncId"`;
