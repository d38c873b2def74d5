import { mkdir } from 'node:fs/promises';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import type { InventoryDb, Queryable, RawRow } from './db.js';

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

/** Opens an embedded PGlite inventory in `dataDir` (null: in memory). One process per directory. */
export async function openPgliteDb(dataDir: string | null): Promise<InventoryDb> {
  if (dataDir !== null) await mkdir(dataDir, { recursive: true });
  const db = dataDir === null ? await PGlite.create() : await PGlite.create(dataDir);
  return {
    kind: 'pglite',
    ...queryable(db),
    // PGlite is one connection: a session is the database itself.
    session: (work) => work(queryable(db)),
    transaction: (work) => db.transaction((tx) => work(queryable(tx))),
    close: () => db.close(),
  };
}
