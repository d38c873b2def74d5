import { isRunLimit } from '../core/frontier.js';
import { z } from 'zod';
import type { InventoryDb } from './db.js';
import { StoredSitemapNoteSchema, SyncSchema, parseRows, type FailedSitemap, type ReportedSitemap, type Sync, type SyncDetail } from './schemas.js';
import { nextSyncSql } from './schedule.js';
import { isRunning, runningSyncConflict } from './running-sync.js';
import { SYNC_COLUMNS, syncsWithTotals } from './sql-columns.js';
import { RequestError } from '../core/errors.js';
import type { JobState, JobStatus, ReportedError } from '../core/types.js';
import { sitemapFate } from '../factory/walk/walk-policy.js';
import { JobIdSchema } from '../store/job-id.js';

/** Sync ids have the shape of job ids (random, URL-safe, 22 characters). */
export const SyncIdSchema = JobIdSchema;

/** Validates a sync id from a request: a malformed one is a 400. */
export function assertSyncId(value: unknown): string {
  if (!SyncIdSchema.safeParse(value).success) throw new RequestError('bad_request', 'invalid syncId');
  return value as string;
}

/** What a second start of a site's sync is refused as (RunningSyncConflict). */
export const SECOND_START_REFUSED = 'another sync cannot start';

/** Inserts a running sync; a concurrent start that won the race makes this the running sync's `conflict`. */
export async function insertSync(db: InventoryDb, sync: { syncId: string; siteId: string; jobId: string }): Promise<Sync> {
  const rows = await db.query(
    `INSERT INTO syncs (sync_id, site_id, job_id, state) VALUES ($1, $2, $3, 'running')
     ON CONFLICT (site_id) WHERE ${isRunning()} DO NOTHING RETURNING sync_id`,
    [sync.syncId, sync.siteId, sync.jobId],
  );
  if (rows.length > 0) return getSync(db, sync.syncId);
  throw (await runningSyncConflict(db, sync.siteId, SECOND_START_REFUSED)) ?? new RequestError('conflict', `site ${sync.siteId} has a running sync`);
}

/** A sync by id (optionally of one site), or `not_found`. */
export async function getSync(db: InventoryDb, syncId: string, siteId?: string): Promise<Sync> {
  const rows = await db.query(`SELECT ${SYNC_COLUMNS} FROM ${syncsWithTotals('y')} WHERE sync_id = $1 AND ($2::text IS NULL OR site_id = $2)`, [
    syncId,
    siteId ?? null,
  ]);
  const [sync] = parseRows(SyncSchema, rows);
  if (!sync) throw new RequestError('not_found', `no sync ${syncId}${siteId ? ` of site ${siteId}` : ''}`);
  return sync;
}

/** The syncs of `syncIds` that exist, in one read (the site list's last syncs); a missing id is left out. */
export async function getSyncsById(db: InventoryDb, syncIds: readonly string[]): Promise<Map<string, Sync>> {
  if (syncIds.length === 0) return new Map();
  const rows = await db.query(`SELECT ${SYNC_COLUMNS} FROM ${syncsWithTotals('y')} WHERE sync_id = ANY($1::text[])`, [syncIds]);
  return new Map(parseRows(SyncSchema, rows).map((sync) => [sync.syncId, sync]));
}

/** A site's latest syncs, newest first. */
export async function listSyncs(db: InventoryDb, siteId: string, limit = 20): Promise<Sync[]> {
  const rows = await db.query(`SELECT ${SYNC_COLUMNS} FROM ${syncsWithTotals('y')} WHERE site_id = $1 ORDER BY started_at DESC, sync_id LIMIT $2`, [
    siteId,
    limit,
  ]);
  return parseRows(SyncSchema, rows);
}

function errorsByKind(status: JobStatus): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const error of status.errors) counts[error.kind] = (counts[error.kind] ?? 0) + 1;
  return counts;
}

// The job keeps its first 1000 errors: each one of a sitemap that failed becomes a failed sitemap with what its failure
// means for its URLs; a report on a sitemap read whole (locs dropped, junk child locs) is kept as such (fate \`read\`).
function sitemapNotes(
  errors: ReadonlyArray<Pick<ReportedError, 'kind' | 'url' | 'message' | 'status' | 'readWhole'>>,
): Array<z.infer<typeof StoredSitemapNoteSchema>> {
  return errors.map(({ url, kind, message, status: httpStatus, readWhole }) => {
    const fate = sitemapFate({ kind, status: httpStatus, readWhole });
    // A report has no status to keep: only a failure says what the server answered.
    return fate === 'read' || httpStatus === undefined ? { url, kind, message, fate } : { url, kind, message, status: httpStatus, fate };
  });
}

/**
 * Copies the job's progress (URLs, shards, sitemaps, errors by kind, failed sitemaps) onto its running sync; `errors`:
 * the job's errors as its store keeps them (with their HTTP status), by default the status's own.
 */
export async function recordJobStatus(db: InventoryDb, syncId: string, status: JobStatus, errors: readonly ReportedError[] = status.errors): Promise<void> {
  await db.query(
    // Workers record as their slices end, in any order: the counters only grow, so an older status never takes them back.
    `UPDATE syncs SET urls_found = GREATEST(urls_found, $2), shards_written = GREATEST(shards_written, $3),
       sitemaps_done = GREATEST(sitemaps_done, $4), sitemaps_pending = $5, errors = $6::jsonb, failed_sitemaps = $7::jsonb, updated_at = now()
     WHERE sync_id = $1 AND ${isRunning()}`,
    [
      syncId,
      status.urlsFound,
      status.shardsWritten,
      status.sitemapsDone,
      status.sitemapsPending,
      JSON.stringify(errorsByKind(status)),
      // The run's own limit reached is not a sitemap that failed: the sync's message says it when it ends.
      JSON.stringify(sitemapNotes(errors.filter((error) => !isRunLimit(error)))),
    ],
  );
}

const StoredSyncDetailSchema = SyncSchema.extend({ sitemapNotes: z.array(StoredSitemapNoteSchema) });

/** A sync with the sitemaps that failed in it (URL, kind, message, status, fate) and those read with a report, or \`not_found\`. */
export async function getSyncDetail(db: InventoryDb, syncId: string, siteId?: string): Promise<SyncDetail> {
  const rows = await db.query(
    `SELECT ${SYNC_COLUMNS}, failed_sitemaps AS "sitemapNotes" FROM ${syncsWithTotals('y')} WHERE sync_id = $1 AND ($2::text IS NULL OR site_id = $2)`,
    [syncId, siteId ?? null],
  );
  const [stored] = parseRows(StoredSyncDetailSchema, rows);
  if (!stored) throw new RequestError('not_found', `no sync ${syncId}${siteId ? ` of site ${siteId}` : ''}`);
  const { sitemapNotes, ...sync } = stored;
  const failedSitemaps: FailedSitemap[] = [];
  const reportedSitemaps: ReportedSitemap[] = [];
  for (const note of sitemapNotes) {
    if (note.fate === 'read') reportedSitemaps.push({ url: note.url, kind: note.kind, message: note.message });
    else failedSitemaps.push(note);
  }
  return { ...sync, failedSitemaps, reportedSitemaps };
}

/**
 * Ends a running sync in `state` (a sync already ended keeps its first ending). A scheduled site's next sync then falls
 * due one interval (plus jitter) from this end, in the same statement: an ending is never without its next date. The
 * sync's working state (its parts' sightings, its queued drops) goes with it.
 */
export async function finishSync(db: InventoryDb, syncId: string, state: Exclude<JobState, 'running'>, message: string | null = null): Promise<void> {
  await db.query(
    `WITH ended AS (
       UPDATE syncs SET state = $2, message = $3, finished_at = now(), updated_at = now() WHERE sync_id = $1 AND ${isRunning()} RETURNING site_id
     ),
     sightings AS (DELETE FROM part_sightings WHERE sync_id = $1),
     drops AS (DELETE FROM sync_drops WHERE sync_id = $1)
     UPDATE sites SET next_sync_at = ${nextSyncSql('sites.schedule_ms')} FROM ended WHERE sites.site_id = ended.site_id AND sites.schedule_ms IS NOT NULL`,
    [syncId, state, message],
  );
}

/** Shards of a sync whose every part is applied (shard -1 holds totals carried over by migration 6, not a shard). */
export async function appliedShards(db: InventoryDb, syncId: string): Promise<Set<number>> {
  const rows = await db.query('SELECT shard FROM sync_parts WHERE sync_id = $1 AND shard >= 0 GROUP BY shard HAVING count(*) = max(parts)', [syncId]);
  return new Set(rows.map((row) => z.coerce.number().int().parse(row.shard)));
}
