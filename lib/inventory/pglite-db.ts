import { mkdir } from 'node:fs/promises';
import { PGlite, type Transaction } from '@electric-sql/pglite';
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

/**
 * Opens an embedded PGlite inventory in `dataDir` (null: in memory). One process per directory: the folder's lock is
 * taken first (a second opener gets a `conflict` naming the holder) and released on close. A new folder's database is
 * created by a child process (lib/inventory/pglite-initdb.ts), so this process's heap is only what the work needs.
 */
export async function openPgliteDb(dataDir: string | null): Promise<InventoryDb> {
  let lock: DbLock | null = null;
  if (dataDir !== null) {
    await mkdir(dataDir, { recursive: true });
    lock = acquireDbLock(dataDir);
  }
  let db: PGlite;
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
