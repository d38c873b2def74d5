import { setFlagsFromString } from 'node:v8';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import { ConfigError } from '../config/factory-config.js';
import { makeDirs } from '../utils/make-dirs.js';
import type { InventoryDb, Queryable, RawRow } from './db.js';
import { acquireDbLock, type DbLock } from './db-lock.js';
import { initdbOnce } from './pglite-initdb.js';

/**
 * Postgres's memory settings for one embedded writer. initdb sizes shared_buffers for a server (128 MB) and PGlite
 * allocates it inside its WebAssembly heap, which never shrinks: the inventory's batches of 500 rows need far less.
 * One connection is all PGlite has, so the per-connection structures are sized for 10, not 100.
 */
const MEMORY_SETTINGS = { shared_buffers: '16MB', max_connections: '10', maintenance_work_mem: '16MB' };

/** PGlite's own start parameters with the settings above. */
export const PGLITE_START_PARAMS: readonly string[] = [
  ...PGlite.defaultStartParams,
  ...Object.entries(MEMORY_SETTINGS).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
];

/**
 * PGlite's 9 MB WebAssembly module is compiled, and its hot functions recompiled by the optimizing tier as they warm up,
 * on V8's background threads: by default on all of them at once, each leaving its compiler's scratch memory in a
 * malloc arena of its own that the process keeps. One compilation task at a time takes the same wall time here and
 * keeps ~20 MB less resident (a 1M-URL sync into PGlite: maxRSS 264,952-280,672 KB in eight runs against 282,392-321,736 KB in four).
 * A V8 flag is the process's: a WebAssembly module compiled after this one gets one background task too.
 */
const ONE_WASM_COMPILATION_TASK = '--wasm-num-compilation-tasks=1';

// Without parameters the text may hold several statements (migrations): PGlite runs those with exec.
function queryable(target: PGlite | Transaction): Queryable {
  return {
    query: async (sql, params = []) => {
      if (params.length > 0) return (await target.query<RawRow>(sql, [...params])).rows;
      const results = await target.exec(sql);
      return (results.at(-1)?.rows ?? []) as RawRow[];
    },
  };
}

// A folder that cannot be made is the caller's choice of place, not a bug: a `config` error that says what to change.
async function makeInventoryDir(dataDir: string): Promise<void> {
  try {
    await makeDirs(dataDir);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ConfigError(
      'FACTORY_DB_DIR',
      `the inventory folder ${dataDir} cannot be made (${reason}): give --db or FACTORY_DB_DIR a folder on a writable disk`,
    );
  }
}

/**
 * Opens an embedded PGlite inventory in `dataDir` (null: in memory). One process per directory: the folder's lock is
 * taken first (a second opener gets a `conflict` naming the holder) and released on close. A new folder's database is
 * created by a child process (lib/inventory/pglite-initdb.ts), so this process's heap is only what the work needs.
 */
export async function openPgliteDb(dataDir: string | null): Promise<InventoryDb> {
  let lock: DbLock | null = null;
  if (dataDir !== null) {
    await makeInventoryDir(dataDir);
    lock = acquireDbLock(dataDir);
  }
  let db: PGlite;
  setFlagsFromString(ONE_WASM_COMPILATION_TASK);
  try {
    if (dataDir !== null) await initdbOnce(dataDir, PGLITE_START_PARAMS);
    db = await PGlite.create({ ...(dataDir === null ? {} : { dataDir }), startParams: [...PGLITE_START_PARAMS] });
  } catch (error) {
    lock?.release();
    throw error;
  }
  return {
    kind: 'pglite',
    ...queryable(db),
    // PGlite is one connection: a session is the database itself.
    session: (work) => work(queryable(db)),
    transaction: (work) => db.transaction((tx) => work(queryable(tx))),
    close: async () => {
      try {
        await db.close();
      } finally {
        lock?.release();
      }
    },
  };
}
