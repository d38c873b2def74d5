import { z } from 'zod';
import { LastmodHonestySchema } from './lastmod-honesty.js';
import { formatSchedule } from './schedule.js';
import { ChangefreqSchema, JobStateSchema } from '../core/types.js';

/** A site id: lower-case letters, digits, `.`, `_`, `-`, starting with a letter or digit, at most 100 characters. */
export const SiteIdSchema = z.string().regex(/^[a-z0-9][a-z0-9._-]{0,99}$/, 'siteId must be 1-100 of a-z 0-9 . _ - starting with a letter or digit');

/** What a job keeps of a site's URLs: only these path groups and locales (empty or absent: all). */
export const SiteFilterSchema = z
  .object({
    pathPrefixes: z
      .array(z.string().regex(/^\/([^/]+\/)?$/, 'a path group is "/" or "/name/"'))
      .max(1_000)
      .default([]),
    locales: z.array(z.string().min(2).max(35)).max(1_000).default([]),
  })
  .strict();
export type SiteFilter = z.infer<typeof SiteFilterSchema>;

// Drivers return timestamps as Date (pg, PGlite); the API speaks ISO strings.
const instant = z.coerce.date().transform((date) => date.toISOString());
const count = z.coerce.number().int().nonnegative();

/** A site row as the API returns it. */
export const SiteSchema = z.object({
  siteId: SiteIdSchema,
  rootUrl: z.string(),
  options: z.record(z.string(), z.unknown()),
  createdAt: instant,
  updatedAt: instant,
  /** How often the site syncs by itself (`24h`, `30m`, ...), or `off`; read from `schedule_ms`. */
  schedule: z.coerce.number().int().positive().nullable().transform(formatSchedule),
  /** When its next scheduled sync falls due (null: no schedule). */
  nextSyncAt: instant.nullable(),
  /** What its last `done` sync measured of its lastmods (null before one). */
  lastmodHonesty: LastmodHonestySchema.nullable(),
});
export type Site = z.infer<typeof SiteSchema>;

/** Counts of errors a sync's job reported, by kind. */
export const ErrorCountsSchema = z.record(z.string(), count);

/** A sync row: its job, state and counts. */
export const SyncSchema = z.object({
  syncId: z.string(),
  siteId: SiteIdSchema,
  jobId: z.string(),
  state: JobStateSchema,
  startedAt: instant,
  finishedAt: instant.nullable(),
  updatedAt: instant,
  urlsFound: count,
  shardsWritten: count,
  shardsApplied: count,
  sitemapsDone: count,
  sitemapsPending: count,
  seen: count,
  new: count,
  changed: count,
  returned: count,
  removed: count,
  /** URLs the site's filter dropped (each time a sitemap lists one); of them, the live ones that left the scope. */
  filtered: count,
  leftScope: count,
  /** URLs that had left the scope and are in it again (a wider sub-tree). */
  enteredScope: count,
  /** Incremental re-sync: sitemaps not read because unchanged, and the live URLs they kept (never removed). */
  unchangedSitemaps: count,
  kept: count,
  /** Live URLs this sync did not see that were kept because their sitemap failed or could not be proven gone (never removed). */
  keptUnread: count,
  errors: ErrorCountsSchema,
  message: z.string().nullable(),
});
export type Sync = z.infer<typeof SyncSchema>;

/** A sitemap (or job-wide step, `url` null) that failed in a sync, and what that failure means for its URLs (`sitemapFate`). */
export const FailedSitemapSchema = z.object({
  url: z.string().nullable(),
  kind: z.string(),
  message: z.string(),
  status: z.number().int().optional(),
  fate: z.enum(['gone', 'unknown']),
});
export type FailedSitemap = z.infer<typeof FailedSitemapSchema>;

/** A sitemap a sync read whole with something to report: locs it dropped (by reason, with an example), junk child locs. */
export const ReportedSitemapSchema = z.object({ url: z.string().nullable(), kind: z.string(), message: z.string() });
export type ReportedSitemap = z.infer<typeof ReportedSitemapSchema>;

/** What `syncs.failed_sitemaps` holds: the failed sitemaps, and the reported ones (fate `read`). */
export const StoredSitemapNoteSchema = z.union([FailedSitemapSchema, ReportedSitemapSchema.extend({ fate: z.literal('read') })]);

/**
 * A sync with its failed sitemaps and the ones read whole with a report (the first 1000 the job kept), as
 * `GET .../syncs/{syncId}` and `sync` show it.
 */
export const SyncDetailSchema = SyncSchema.extend({ failedSitemaps: z.array(FailedSitemapSchema), reportedSitemaps: z.array(ReportedSitemapSchema) });
export type SyncDetail = z.infer<typeof SyncDetailSchema>;

/** A site with its URL count and last sync, as the site list shows it. */
/** A site in the list: its live URLs, how many of its sitemaps failed at their last read, and its last sync. */
export const SiteSummarySchema = SiteSchema.extend({ urlCount: count, failingSitemaps: count, lastSync: SyncSchema.nullable() });
export type SiteSummary = z.infer<typeof SiteSummarySchema>;

/** One URL of a site's inventory. */
export const UrlRowSchema = z.object({
  url: z.string(),
  sitemapLastmod: z.string().nullable(),
  changefreq: ChangefreqSchema.nullable(),
  priority: z.number().nullable(),
  sourceSitemap: z.string(),
  locale: z.string().nullable(),
  pathPrefix: z.string().nullable(),
  firstSeenAt: instant,
  lastSeenAt: instant,
  sitemapSyncedAt: instant,
  changedAt: instant,
  removedAt: instant.nullable(),
  /** Not live because the site's scope no longer holds it (`removedAt`: since when), not because the site dropped it. */
  outOfScope: z.boolean(),
  lastSyncId: z.string(),
});
export type UrlRow = z.infer<typeof UrlRowSchema>;

/** One change of a URL: a field's old and new value, or its removal or return. */
export const HistoryRowSchema = z.object({
  id: z.coerce.number().int(),
  syncId: z.string(),
  event: z.enum(['lastmod', 'changefreq', 'priority', 'removed', 'returned', 'left_scope', 'entered_scope']),
  oldValue: z.string().nullable(),
  newValue: z.string().nullable(),
  recordedAt: instant,
});
export type HistoryRow = z.infer<typeof HistoryRowSchema>;

/** Validates rows read back from the database: a row that does not fit is a bug, never trusted. */
export function parseRows<S extends z.ZodType>(schema: S, rows: readonly unknown[]): Array<z.output<S>> {
  return rows.map((row) => schema.parse(row));
}
