import { z } from 'zod';
import type { InventoryDb } from '../inventory/db.js';
import { openInventoryDb, DEFAULT_DB_DIR } from '../inventory/open-db.js';

/** The inventory's environment: Postgres when DATABASE_URL is set, else PGlite in FACTORY_DB_DIR. */
const InventoryEnvSchema = z.object({
  DATABASE_URL: z.string().min(1).optional(),
  FACTORY_DB_DIR: z.string().min(1).optional(),
  VERCEL: z.string().optional(),
});

// One database handle per warm instance, as the job store: a pool (or PGlite's start) per request would cost seconds.
let cachedDb: Promise<InventoryDb> | null = null;

/** The inventory database of this process, opened (and migrated) on first use. */
export function inventoryDb(env: NodeJS.ProcessEnv = process.env): Promise<InventoryDb> {
  const parsed = InventoryEnvSchema.parse(env);
  // A serverless instance's disk is scratch: PGlite there would lose the inventory at every cold start.
  if (parsed.VERCEL === '1' && !parsed.DATABASE_URL) throw new Error('DATABASE_URL is not set: the inventory needs Postgres on Vercel');
  cachedDb ??= openInventoryDb({ databaseUrl: parsed.DATABASE_URL ?? null, dataDir: parsed.FACTORY_DB_DIR ?? DEFAULT_DB_DIR }).catch((error: unknown) => {
    cachedDb = null;
    throw error;
  });
  return cachedDb;
}

/** Closes the cached database (`serve` on shutdown, tests between cases). */
export async function resetInventoryDb(): Promise<void> {
  const db = cachedDb;
  cachedDb = null;
  await (await db?.catch(() => null))?.close();
}
