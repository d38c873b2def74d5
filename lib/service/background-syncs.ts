import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { FactoryConfig } from '../config/factory-config.js';
import { isFactoryError } from '../core/errors.js';
import { DEFAULT_DB_DIR } from '../inventory/open-db.js';
import { runningSyncIds } from '../inventory/running-sync.js';
import { inProcessDispatcher } from '../dispatch/in-process.js';
import { startPgBossEngine } from '../dispatch/pgboss/index.js';
import { createLogger } from '../utils/logger.js';
import type { ServiceContext } from './service.js';

const log = createLogger('http:background-syncs');

/** How many slices a process that drives syncs runs at once, and how many of one site host. */
export interface SliceWorkerOptions {
  concurrency: number;
  perHost: number;
}

/** `serve`'s share of the work on Postgres: a few slices at once, two per host (as due syncs start at most two per host). */
export const DEFAULT_SLICE_WORKER_OPTIONS: SliceWorkerOptions = { concurrency: 4, perHost: 2 };

/**
 * Makes this process drive syncs until `stop` (which aborts the slices in flight and waits): on a Postgres inventory,
 * a pg-boss worker that takes slices from the queue every worker shares; on PGlite (one process), the in-process loop.
 * The inventory is opened first, so a database that is down or misconfigured is `store_unavailable` or `config`.
 */
export async function enableBackgroundSyncs(
  service: ServiceContext,
  options: SliceWorkerOptions = DEFAULT_SLICE_WORKER_OPTIONS,
): Promise<{ stop(): Promise<void> }> {
  const { database, pgboss } = service.config;
  if (database.type !== 'postgres') return service.slices.use(inProcessDispatcher());
  try {
    await service.runtime();
    const engine = await startPgBossEngine({ databaseUrl: database.url, settings: pgboss, runtime: () => service.runtime(), ...options });
    return service.slices.use(engine);
  } catch (error) {
    // The handles opened so far would hold the process open behind the error.
    await service.release();
    throw error;
  }
}

/** False when the inventory is an embedded database never created (no syncs, no sites): opening it would only create an empty one in the cwd. */
export function hasInventory({ database }: FactoryConfig): boolean {
  return database.type === 'postgres' || existsSync(join(database.dir ?? DEFAULT_DB_DIR, 'PG_VERSION'));
}

/**
 * Adopts every sync left `running` in the inventory (by a server that was killed, or one that is still alive: advancing a
 * sync from two processes is safe), so it goes on by itself instead of blocking new syncs of its site. Returns their
 * ids. A database or store that is misconfigured or unreachable is thrown (`config`, `store_unavailable`), the handles
 * closed first; another failure is logged and leaves the syncs to the next caller.
 */
export async function resumeRunningSyncs(service: ServiceContext): Promise<string[]> {
  if (!hasInventory(service.config)) return [];
  try {
    const runtime = await service.runtime();
    const syncIds = await runningSyncIds(runtime.db);
    if (syncIds.length === 0) return [];
    for (const syncId of syncIds) await service.slices.current().continueSync(runtime, syncId);
    log.info({ event: 'syncs_resumed', syncIds }, 'running syncs resumed');
    return syncIds;
  } catch (error) {
    await service.release();
    // A database or store that is misconfigured or down is the operator's to fix now; anything else (another process
    // holding the embedded database, say) leaves the syncs for a later caller and the server serving.
    if (isFactoryError(error) && (error.kind === 'config' || error.kind === 'store_unavailable')) throw error;
    log.error({ event: 'syncs_resume_failed', err: error }, 'running syncs could not be resumed: they wait for the next caller');
    return [];
  }
}

/** What `serve` is told as its background work starts, waits for its database or store, and comes back. */
export type BackgroundEvent = { type: 'resumed'; syncIds: string[] } | { type: 'waiting'; message: string; retryMs: number } | { type: 'recovered' };

/** How long `serve` waits between tries of a database or store that was unreachable at start. */
const BACKGROUND_RETRY_MS = 5_000;

function isUnavailable(error: unknown): error is Error {
  return isFactoryError(error) && error.kind === 'store_unavailable';
}

/**
 * Starts the background syncs and adopts the running ones (`enableBackgroundSyncs`, `resumeRunningSyncs`). A database or
 * store unreachable at start does not stop the server: the routes that need it answer 503 `store_unavailable` with
 * `Retry-After` meanwhile, and this tries again every 5 s until it answers (one `waiting` event, one
 * `recovered`). A `config` error still throws: that is the operator's to fix before anything can run.
 */
export async function startBackgroundSyncs(service: ServiceContext, onEvent: (event: BackgroundEvent) => void): Promise<{ stop(): Promise<void> }> {
  let engine: { stop(): Promise<void> } | null = null;
  let timer: NodeJS.Timeout | null = null;
  let trying: Promise<boolean> | null = null;
  let stopped = false;
  const attempt = async (): Promise<boolean> => {
    try {
      engine ??= await enableBackgroundSyncs(service);
      const syncIds = await resumeRunningSyncs(service);
      if (syncIds.length > 0) onEvent({ type: 'resumed', syncIds });
      return true;
    } catch (error) {
      if (!isUnavailable(error)) throw error;
      if (timer === null) onEvent({ type: 'waiting', message: error.message, retryMs: BACKGROUND_RETRY_MS });
      return false;
    }
  };
  const retry = () => {
    timer = setTimeout(() => {
      if (stopped) return;
      trying = attempt().catch((error: unknown) => {
        log.error({ event: 'background_start_failed', err: error }, 'background syncs could not start: they wait for the next try');
        return false;
      });
      void trying.then((started) => {
        if (stopped) return;
        if (started) onEvent({ type: 'recovered' });
        else retry();
      });
    }, BACKGROUND_RETRY_MS);
  };
  if (!(await attempt())) retry();
  return {
    stop: async () => {
      stopped = true;
      if (timer !== null) clearTimeout(timer);
      await trying;
      await engine?.stop();
    },
  };
}
