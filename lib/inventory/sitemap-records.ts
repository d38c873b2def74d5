// Each sitemap of a site as a record: what a sync's job read of it (or why it failed), written when the job has ended,
// and the history of its reads. Written once per sync: a settle run again after a crash changes nothing more.
import { z } from 'zod';
import type { InventoryDb } from './db.js';
import { FindingSchema, type Finding } from '../core/finding.js';
import {
  FoundBySchema,
  SitemapFailureSchema,
  SitemapFormatSchema,
  SitemapReportSchema,
  sitemapFailureOf,
  type ReportedError,
  type SitemapReport,
} from '../core/types.js';
import { readStatusOf, SitemapStatusSchema } from '../factory/findings/index.js';

/** Rows a statement writes at most: a sync of 50,000 sitemaps records them in 100 statement pairs. */
const RECORD_BATCH = 500;

/** How a sync ended with a sitemap: read whole, left unread as unchanged (it keeps its figures), or failed. */
type Outcome = 'read' | 'unchanged' | 'failed';

interface RecordRow {
  url: string;
  outcome: Outcome;
  found_via: string | null;
  parent_url: string | null;
  kind: string | null;
  status: string;
  failure: { kind: string; message: string; httpStatus: number | null } | null;
  url_count: number;
  child_count: number;
  dropped_count: number;
  bytes: number;
  findings: Finding[];
  errors: number;
  warnings: number;
  notices: number;
}

const count = (findings: readonly Finding[], severity: Finding['severity']) => findings.filter((f) => f.severity === severity).length;

function readRow(report: SitemapReport): RecordRow {
  const { findings } = report;
  return {
    url: report.url,
    outcome: report.unchanged ? 'unchanged' : 'read',
    found_via: report.foundVia,
    parent_url: report.parent,
    kind: report.kind,
    status: readStatusOf(findings),
    failure: null,
    url_count: report.urls,
    child_count: report.children,
    dropped_count: report.dropped,
    bytes: report.bytes,
    findings,
    errors: count(findings, 'error'),
    warnings: count(findings, 'warning'),
    notices: count(findings, 'notice'),
  };
}

function failedRow(error: ReportedError & { url: string }): RecordRow {
  return {
    url: error.url,
    outcome: 'failed',
    found_via: error.parent ? 'index' : null,
    parent_url: error.parent ?? null,
    kind: null,
    status: 'failed',
    failure: sitemapFailureOf(error),
    ...{ url_count: 0, child_count: 0, dropped_count: 0, bytes: 0, findings: [] },
    ...{ errors: 1, warnings: 0, notices: 0 },
  };
}

/** The rows a job's end gives: each report, and each sitemap that failed (a job error on a sitemap no report covers). */
export function recordRows(ended: { reports: readonly SitemapReport[]; errors: readonly ReportedError[] }): RecordRow[] {
  const read = new Set(ended.reports.map((report) => report.url));
  const failed = new Map<string, RecordRow>();
  for (const error of ended.errors) {
    if (error.url === null || error.depth === undefined || error.readWhole === true || read.has(error.url)) continue;
    if (!failed.has(error.url)) failed.set(error.url, failedRow({ ...error, url: error.url }));
  }
  return [...ended.reports.map((report) => readRow(SitemapReportSchema.parse(report))), ...failed.values()];
}

const ROWS = `jsonb_to_recordset($3::jsonb) AS r(url text, outcome text, found_via text, parent_url text, kind text, status text, failure jsonb,
  url_count integer, child_count integer, dropped_count integer, bytes bigint, findings jsonb, errors integer, warnings integer, notices integer)`;

// A read replaces the figures; unchanged keeps them (it was not read) and a failure keeps the last read's. Only a sync
// later than the one that last wrote the row writes it (`read_seq`), so a settle run twice counts a failure once.
const UPDATE_AND_HISTORY = `
WITH sync AS (SELECT seq FROM syncs WHERE sync_id = $2),
r AS (SELECT * FROM ${ROWS}),
updated AS (
  UPDATE sitemaps s SET
    found_via = coalesce(r.found_via, s.found_via),
    parent_url = r.parent_url,
    kind = CASE WHEN r.outcome = 'read' THEN r.kind ELSE s.kind END,
    status = CASE WHEN r.outcome = 'unchanged' THEN coalesce(s.status, 'ok') ELSE r.status END,
    failure = r.failure,
    url_count = CASE WHEN r.outcome = 'read' THEN r.url_count ELSE s.url_count END,
    child_count = CASE WHEN r.outcome = 'read' THEN r.child_count ELSE s.child_count END,
    dropped_count = CASE WHEN r.outcome = 'read' THEN r.dropped_count ELSE s.dropped_count END,
    bytes = CASE WHEN r.outcome = 'read' THEN r.bytes ELSE s.bytes END,
    findings = CASE WHEN r.outcome = 'read' THEN r.findings ELSE s.findings END,
    last_read_at = now(),
    last_changed_at = CASE
      WHEN r.outcome = 'read' AND (s.last_read_at IS NULL OR (s.url_count, s.child_count, s.bytes) IS DISTINCT FROM (r.url_count, r.child_count, r.bytes))
      THEN now() ELSE s.last_changed_at END,
    fail_streak = CASE WHEN r.outcome = 'failed' THEN s.fail_streak + 1 ELSE 0 END,
    vanished_at = NULL,
    read_seq = (SELECT seq FROM sync)
  FROM r
  WHERE s.site_id = $1 AND s.url = r.url AND s.read_seq < (SELECT seq FROM sync)
  RETURNING s.sitemap_id, s.status, s.url_count, s.bytes, r.errors, r.warnings, r.notices)
INSERT INTO sitemap_reads (site_id, sitemap_id, seq, sync_id, status, url_count, bytes, errors, warnings, notices)
SELECT $1, u.sitemap_id, (SELECT seq FROM sync), $2, u.status, u.url_count, u.bytes, u.errors, u.warnings, u.notices FROM updated u
ON CONFLICT DO NOTHING`;

// The sitemaps the removal step took as read whole that this sync neither read nor failed on: no index lists them.
const VANISHED = `
WITH sync AS (SELECT seq FROM syncs WHERE sync_id = $2),
gone AS (
  UPDATE sitemaps s SET vanished_at = now(), read_seq = (SELECT seq FROM sync)
  WHERE s.site_id = $1 AND s.sitemap_id = ANY($3::int[]) AND s.read_seq < (SELECT seq FROM sync) AND s.vanished_at IS NULL
  RETURNING s.sitemap_id, s.url_count, s.bytes)
INSERT INTO sitemap_reads (site_id, sitemap_id, seq, sync_id, status, url_count, bytes, errors, warnings, notices)
SELECT $1, g.sitemap_id, (SELECT seq FROM sync), $2, 'vanished', g.url_count, g.bytes, 0, 0, 0 FROM gone g
ON CONFLICT DO NOTHING`;

/**
 * Records what a sync's job ended with, sitemap by sitemap: each row (made first when new) takes the read's state and
 * one `sitemap_reads` row, in one transaction a batch. `listed`, for a `done` sync, is the removal step's sitemaps read
 * whole (its one rule of what is gone): those among them this sync did not read vanished from the site.
 */
export async function recordSitemapReads(
  db: InventoryDb,
  sync: { syncId: string; siteId: string },
  ended: { reports: readonly SitemapReport[]; errors: readonly ReportedError[]; listed?: readonly number[] },
): Promise<void> {
  const rows = recordRows(ended);
  for (let start = 0; start < rows.length; start += RECORD_BATCH) {
    const batch = JSON.stringify(rows.slice(start, start + RECORD_BATCH));
    await db.transaction(async (tx) => {
      await tx.query(`INSERT INTO sitemaps (site_id, url) SELECT $1, r.url FROM ${ROWS.replace('$3', '$2')} ON CONFLICT (site_id, url) DO NOTHING`, [
        sync.siteId,
        batch,
      ]);
      await tx.query(UPDATE_AND_HISTORY, [sync.siteId, sync.syncId, batch]);
    });
  }
  if (ended.listed !== undefined && ended.listed.length > 0) await db.query(VANISHED, [sync.siteId, sync.syncId, ended.listed]);
}

const iso = z.coerce.date().transform((date) => date.toISOString());

/** A sitemap's record as the API and the CLI give it. */
export const SitemapRecordSchema = z.object({
  sitemapId: z.coerce.number().int(),
  url: z.string(),
  foundVia: FoundBySchema.nullable(),
  parent: z.string().nullable(),
  kind: SitemapFormatSchema.nullable(),
  /** Null until a sync records it (a sitemap known only from its URLs' memberships, before migration 13). */
  status: SitemapStatusSchema.nullable(),
  failure: SitemapFailureSchema.nullable(),
  urls: z.coerce.number().int(),
  children: z.coerce.number().int(),
  dropped: z.coerce.number().int(),
  bytes: z.coerce.number().int(),
  findings: z.array(FindingSchema),
  firstSeenAt: iso,
  lastReadAt: iso.nullable(),
  lastChangedAt: iso.nullable(),
  failStreak: z.coerce.number().int(),
  /** When no index listed it any more (null: it is listed); its history has a `vanished` read then. */
  vanishedAt: iso.nullable(),
});
export type SitemapRecord = z.infer<typeof SitemapRecordSchema>;
