import { mkdir } from 'node:fs/promises';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import type { InventoryDb, Queryable, RawRow } from './db.js';
import { acquireDbLock, type DbLock } from './db-lock.js';

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
 * taken first (a second opener gets a `conflict` naming the holder) and released on close.
 */
export async function openPgliteDb(dataDir: string | null): Promise<InventoryDb> {
  let lock: DbLock | null = null;
  if (dataDir !== null) {
    await mkdir(dataDir, { recursive: true });
    lock = acquireDbLock(dataDir);
  }
  let db: PGlite;
  try {
    db = dataDir === null ? await PGlite.create() : await PGlite.create(dataDir);
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
