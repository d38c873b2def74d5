import { databaseUrlFrom, DATABASE_URL_EXPECTED, DEFAULT_DB_DIR, isDatabaseUrl, openInventoryDb, type InventoryDb } from '../lib/inventory/index.js';
import { UsageError } from './io.js';

/** Where the inventory lives: Postgres (a connection string, from `--db` or DATABASE_URL) or a PGlite folder. */
export type DbTarget = { kind: 'postgres'; url: string; from: '--db' | 'DATABASE_URL' } | { kind: 'pglite'; dir: string };

/** A `--db` value that is a Postgres connection string, never a folder named `postgres:`. */
const POSTGRES_URL = /^postgres(?:ql)?:\/\//i;

/**
 * The inventory `--db` names: a postgres:// (or postgresql://) URL is Postgres (one that does not parse is refused); else DATABASE_URL wins (as documented
 * since `sync` first took --db); else the folder given, FACTORY_DB_DIR, or `.crawler-factory/db`.
 */
export function dbTarget(flag: string | undefined, env: NodeJS.ProcessEnv): DbTarget {
  if (flag !== undefined && POSTGRES_URL.test(flag)) {
    // The driver would read a URL it cannot parse as "all defaults" and open the local server's database instead.
    if (!isDatabaseUrl(flag))
      throw new UsageError(`--db: ${DATABASE_URL_EXPECTED} (this one does not parse: percent-encode @, : and / in the user and password)`);
    return { kind: 'postgres', url: flag, from: '--db' };
  }
  const fromEnv = databaseUrlFrom(env);
  if (fromEnv !== null) return { kind: 'postgres', url: fromEnv, from: 'DATABASE_URL' };
  return { kind: 'pglite', dir: flag ?? (env.FACTORY_DB_DIR || DEFAULT_DB_DIR) };
}

/** Opens the inventory a target names. */
export function openDbTarget(target: DbTarget): Promise<InventoryDb> {
  return openInventoryDb(target.kind === 'postgres' ? { databaseUrl: target.url } : { databaseUrl: null, dataDir: target.dir });
}

/** A connection string fit to print: its password hidden. */
export function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.href;
  } catch {
    return 'postgres://…';
  }
}

/** Where the inventory is, for stderr: `Postgres (DATABASE_URL)`, `Postgres (postgres://host/db)`, `PGlite in DIR`. */
export function describeDb(target: DbTarget): string {
  if (target.kind === 'pglite') return `PGlite in ${target.dir}`;
  return target.from === 'DATABASE_URL' ? 'Postgres (DATABASE_URL)' : `Postgres (${redactedUrl(target.url)})`;
}
