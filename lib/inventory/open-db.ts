import { join } from 'node:path';
import type { InventoryDb } from './db.js';
import { applyMigrations } from './migrate.js';

/** Where the embedded database lives when neither DATABASE_URL nor a directory is given. */
export const DEFAULT_DB_DIR = join('.crawler-factory', 'db');

/** How to open the inventory: Postgres when `databaseUrl` is set, else PGlite in `dataDir` (null: in memory). */
export interface OpenInventoryOptions {
  databaseUrl?: string | null;
  dataDir?: string | null;
  /** Postgres only: a schema of its own (tests). */
  schema?: string;
}

/** Opens the inventory database and applies pending migrations (safe to run twice and from two processes at once). */
export async function openInventoryDb(options: OpenInventoryOptions = {}): Promise<InventoryDb> {
  // Loaded on demand: a Postgres deployment never loads PGlite's WebAssembly, and PGlite users never load pg.
  const db = options.databaseUrl
    ? await (await import('./pg-db.js')).openPgDb({ connectionString: options.databaseUrl, ...(options.schema ? { schema: options.schema } : {}) })
    : await (await import('./pglite-db.js')).openPgliteDb(options.dataDir === undefined ? DEFAULT_DB_DIR : options.dataDir);
  try {
    await applyMigrations(db);
  } catch (error) {
    await db.close();
    throw error;
  }
  return db;
}
