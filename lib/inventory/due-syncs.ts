import { z } from 'zod';
import type { InventoryDb } from './db.js';
import { DUE_SITE_SQL } from './schedule.js';
import { startSync, type SyncRuntime } from './sync-driver.js';
import { isFactoryError } from '../core/errors.js';
import { createLogger } from '../utils/logger.js';
import { isRunning } from './running-sync.js';

const log = createLogger('inventory:due-syncs');

/** How many due syncs one tick starts, and how many running syncs one host may have at once. */
export interface DueSyncLimits {
  limit: number;
  perHost: number;
}

/** Defaults of a tick: enough for thousands of sites per hour at one tick every 5 minutes, and gentle on each host. */
export const DEFAULT_DUE_SYNC_LIMITS: DueSyncLimits = { limit: 50, perHost: 2 };

/**
 * What a tick did: syncs started (site and sync ids), sites whose start failed (tried again 5 minutes on, unless a sync
 * of theirs was already running), and due sites left for a later tick.
 */
export interface DueSyncsResult {
  started: Array<{ siteId: string; syncId: string }>;
  failed: Array<{ siteId: string; kind: string; message: string }>;
  skipped: number;
}

// The site's host (with its port) from its root URL: the unit of politeness, as the job's per-host limits.
const HOST_SQL = `lower(substring(root_url from '^[a-zA-Z][a-zA-Z0-9+.-]*://([^/?#]+)'))`;

// Session advisory lock of the tick, one per schema (an inventory): key pair (the bytes of "cftk", the schema's hash). The
// claim and the starts of one tick are serialised across processes, so the per-host count each tick reads includes the
// syncs the tick before it started; inventories in other schemas of the same database tick on their own.
const TICK_LOCK_CLASS = 1667658859;
const TICK_LOCK_KEY = `${TICK_LOCK_CLASS}, hashtext(current_schema())`;

// PGlite is one session, where an advisory lock is re-entrant: ticks inside one process are serialised here as well.
const ticking = new WeakSet<InventoryDb>();

// A claimed site is due again this long after its claim unless its sync started: a process killed between the claim and
// the start loses nothing. Once started, the running sync keeps it from being claimed, and its end moves the next sync one
// interval on (endSync). Ticks hold the tick lock, so a slow batch of starts is never claimed twice meanwhile.
const CLAIM_LEASE_MS = 60_000;

/**
 * Claims due sites (scheduled, not deleted, next sync due, no running sync), oldest due first, at most `perHost` running
 * syncs per host counting those already running: moves their next sync CLAIM_LEASE_MS on and returns their ids.
 */
async function claimDueSites(db: InventoryDb, limits: DueSyncLimits): Promise<string[]> {
  const rows = await db.query(
    `WITH running AS (
       SELECT ${HOST_SQL} AS host, count(*) AS n FROM syncs y JOIN sites s USING (site_id) WHERE ${isRunning('y')} GROUP BY 1
     ), due AS (
       SELECT site_id, ${HOST_SQL} AS host, next_sync_at FROM sites s WHERE ${DUE_SITE_SQL}
       ORDER BY next_sync_at LIMIT $3 FOR UPDATE SKIP LOCKED
     ), ranked AS (
       SELECT due.site_id, due.next_sync_at,
         row_number() OVER (PARTITION BY due.host ORDER BY due.next_sync_at, due.site_id) + coalesce(running.n, 0) AS slot
       FROM due LEFT JOIN running ON running.host = due.host
     ), chosen AS (
       SELECT site_id FROM ranked WHERE slot <= $2 ORDER BY next_sync_at, site_id LIMIT $1
     )
     UPDATE sites SET next_sync_at = now() + ${CLAIM_LEASE_MS} * interval '1 millisecond' FROM chosen WHERE sites.site_id = chosen.site_id
     RETURNING sites.site_id AS "siteId"`,
    // Due rows read per tick: enough beyond `limit` that a host at its cap does not starve the others behind it.
    [limits.limit, limits.perHost, limits.limit * 4],
  );
  return rows.map((row) => z.string().parse(row.siteId));
}

async function countDue(db: InventoryDb): Promise<number> {
  const [row] = await db.query(`SELECT count(*)::int AS n FROM sites s WHERE ${DUE_SITE_SQL}`);
  return z.coerce
    .number()
    .int()
    .parse(row?.n ?? 0);
}

// Starts running at once within a tick: each is a few round trips to the inventory and the job store, and a fleet's
// workers wait on a tick's starts (200 due sites started one by one took 8 s of a 19 s fleet run in bench/fleet).
const START_CONCURRENCY = 8;

async function startClaimed(runtime: SyncRuntime, siteIds: string[], result: DueSyncsResult): Promise<void> {
  const queue = [...siteIds];
  const starter = async () => {
    for (let siteId = queue.shift(); siteId !== undefined; siteId = queue.shift()) await startOne(runtime, siteId, result);
  };
  await Promise.all(Array.from({ length: Math.min(START_CONCURRENCY, queue.length) }, starter));
  // Reported in claim order (oldest due first), whichever start finished first.
  const order = new Map(siteIds.map((siteId, index) => [siteId, index]));
  for (const list of [result.started, result.failed]) list.sort((a, b) => (order.get(a.siteId) ?? 0) - (order.get(b.siteId) ?? 0));
}

async function startOne(runtime: SyncRuntime, siteId: string, result: DueSyncsResult): Promise<void> {
  const { db } = runtime;
  try {
    result.started.push({ siteId, syncId: (await startSync(runtime, siteId)).syncId });
  } catch (error) {
    const kind = isFactoryError(error) ? error.kind : 'internal';
    // A manual sync that won the race moves the next sync on when it ends; any other failure (the job store down)
    // is tried again soon rather than a whole interval later.
    if (kind !== 'conflict')
      await db.query(`UPDATE sites SET next_sync_at = now() + interval '5 minutes' WHERE site_id = $1 AND schedule_ms IS NOT NULL`, [siteId]);
    const message = error instanceof Error ? error.message : String(error);
    log.warn({ event: 'scheduled_sync_not_started', siteId, kind, err: error }, 'a due sync could not start');
    result.failed.push({ siteId, kind, message });
  }
}

/**
 * Starts the syncs that are due: claims due sites atomically (`FOR UPDATE SKIP LOCKED`, next sync leased CLAIM_LEASE_MS
 * on in the same statement), never a second sync of a site (the one-running-sync rule) nor more than `perHost` running syncs of one
 * host, and starts each (`startSync`, incremental). Ticks are serialised by an advisory lock: a tick that finds another
 * one running starts nothing and counts every due site as skipped.
 */
export async function startDueSyncs(runtime: SyncRuntime, limits: DueSyncLimits = DEFAULT_DUE_SYNC_LIMITS): Promise<DueSyncsResult> {
  const result: DueSyncsResult = { started: [], failed: [], skipped: 0 };
  const { db } = runtime;
  if (ticking.has(db)) return { ...result, skipped: await countDue(db) };
  ticking.add(db);
  try {
    return await db.session(async (session) => {
      const [lock] = await session.query(`SELECT pg_try_advisory_lock(${TICK_LOCK_KEY}) AS locked`);
      if (lock?.locked !== true) return { ...result, skipped: await countDue(db) };
      try {
        await startClaimed(runtime, await claimDueSites(db, limits), result);
        result.skipped = await countDue(db);
        if (result.started.length > 0) log.info({ event: 'scheduled_syncs_started', started: result.started }, 'due syncs started');
        return result;
      } finally {
        await session.query(`SELECT pg_advisory_unlock(${TICK_LOCK_KEY})`);
      }
    });
  } finally {
    ticking.delete(db);
  }
}
