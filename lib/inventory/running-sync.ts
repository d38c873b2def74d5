import { z } from 'zod';
import type { InventoryDb } from './db.js';
import { SyncSchema, parseRows, type Sync } from './schemas.js';
import { SYNC_COLUMNS, syncsWithTotals } from './sql-columns.js';
import { RequestError } from '../core/errors.js';

// A sync's running state, in one place: the SQL that tests it, the site's running sync, and the one 409 that whatever a
// running sync forbids (a second start, a change or a delete of its site) is refused with. A site has at most one
// running sync: the partial unique index syncs_one_running (migration 1) holds `isRunning()` as its predicate.

/** SQL: the sync row (of `alias`, when the query names its table) is running. */
export function isRunning(alias?: string): string {
  return `${alias === undefined ? '' : `${alias}.`}state = 'running'`;
}

/** SQL: the site named by `siteRef` (a parameter like `$1`, or a column) has a running sync. */
export function siteHasRunningSync(siteRef: string): string {
  return `EXISTS (SELECT 1 FROM syncs r WHERE r.site_id = ${siteRef} AND ${isRunning('r')})`;
}

/** The running sync of a site, or null. */
export async function runningSync(db: InventoryDb, siteId: string): Promise<Sync | null> {
  const rows = await db.query(`SELECT ${SYNC_COLUMNS} FROM ${syncsWithTotals('y')} WHERE site_id = $1 AND ${isRunning()}`, [siteId]);
  return parseRows(SyncSchema, rows)[0] ?? null;
}

/** Every running sync's id, oldest first (what a restarted server adopts). */
export async function runningSyncIds(db: InventoryDb): Promise<string[]> {
  const rows = await db.query(`SELECT sync_id AS "syncId" FROM syncs WHERE ${isRunning()} ORDER BY started_at`);
  return rows.map((row) => z.string().parse(row.syncId));
}

/**
 * The 409 `conflict` of anything a running sync forbids: names the sync, when it last moved (a sync whose process was
 * killed stops moving) and what waits for it; the interface the caller used (the HTTP API, the CLI) adds its ways on.
 */
export class RunningSyncConflict extends RequestError {
  constructor(
    readonly running: Pick<Sync, 'siteId' | 'syncId' | 'updatedAt'>,
    /** What is refused, as in "site X has a running sync Y: <refused> until it ends". */
    readonly refused: string,
    waysOn: string | null = null,
  ) {
    const message = `site ${running.siteId} has a running sync ${running.syncId} (last moved ${running.updatedAt}): ${refused} until it ends`;
    super('conflict', waysOn === null ? message : `${message}; ${waysOn}`);
  }

  /** The same refusal, saying how to go on from the interface it is answered through. */
  withWaysOn(waysOn: string): RunningSyncConflict {
    return new RunningSyncConflict(this.running, this.refused, waysOn);
  }
}

/**
 * The refusal of `refused` on a site whose running sync blocked it. A sync that ended between the refusal and this
 * read is named as it was last seen: null only when none is left to name (the caller may try again).
 */
export async function runningSyncConflict(db: InventoryDb, siteId: string, refused: string): Promise<RunningSyncConflict | null> {
  const running = await runningSync(db, siteId);
  return running === null ? null : new RunningSyncConflict(running, refused);
}
