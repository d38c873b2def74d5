import { ConfigError, factoryConfig } from '../config/factory-config.js';
import type { InventoryDb } from '../inventory/db.js';
import { openInventoryDb, DEFAULT_DB_DIR } from '../inventory/open-db.js';
import { WarmHandle } from '../utils/warm-handle.js';

// One database handle per warm instance, as the job store: a pool (or PGlite's start) per request would cost seconds.
const warmDb = new WarmHandle<InventoryDb>();

/** The inventory database of this process (Postgres with DATABASE_URL, else PGlite), opened and migrated on first use. */
export function inventoryDb(env: Record<string, string | undefined> = process.env): Promise<InventoryDb> {
  const { database, onVercel } = factoryConfig(env);
  // A serverless instance's disk is scratch: PGlite there would lose the inventory at every cold start.
  if (onVercel && database.type === 'pglite') throw new ConfigError('DATABASE_URL', 'DATABASE_URL is not set: the inventory needs Postgres on Vercel');
  const target =
    database.type === 'postgres' ? { databaseUrl: database.url, dataDir: DEFAULT_DB_DIR } : { databaseUrl: null, dataDir: database.dir ?? DEFAULT_DB_DIR };
  return warmDb.get(() => openInventoryDb(target));
}

/** Closes the cached database (`serve` on shutdown, tests between cases). */
export async function resetInventoryDb(): Promise<void> {
  await warmDb.reset();
}
