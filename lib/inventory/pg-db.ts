import pg from 'pg';
import type { InventoryDb, Queryable, RawRow } from './db.js';
import { toDatabaseFailure } from './db-errors.js';

/** How long a connection attempt may take before the database counts as unavailable (pg waits forever by default). */
const CONNECT_TIMEOUT_MS = 5_000;

/** A schema name from configuration (tests): plain identifiers only, since it is written into a startup option. */
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** Options of a Postgres inventory. */
export interface PgDbOptions {
  connectionString: string;
  /** A schema of its own (tests); created if missing. Default: the server's search_path. */
  schema?: string;
  max?: number;
}

function queryable(client: pg.Pool | pg.PoolClient): Queryable {
  return {
    query: async (sql, params = []) => {
      try {
        return (await client.query<RawRow>(sql, [...params])).rows;
      } catch (error) {
        throw toDatabaseFailure(error);
      }
    },
  };
}

/** Opens a pooled Postgres inventory and creates its schema if asked (migrations: openInventoryDb applies them). */
export async function openPgDb(options: PgDbOptions): Promise<InventoryDb> {
  if (options.schema !== undefined && !SCHEMA_NAME.test(options.schema)) throw new Error(`invalid schema name ${options.schema}`);
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.max ?? 5,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
  });
  // An idle client's error (server restart) must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  const session = async <T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> => {
    const client = await pool.connect().catch((error: unknown) => {
      throw toDatabaseFailure(error);
    });
    try {
      return await work(client);
    } finally {
      client.release();
    }
  };
  const db: InventoryDb = {
    kind: 'postgres',
    ...queryable(pool),
    session: (work) => session((client) => work(queryable(client))),
    transaction: (work) =>
      session(async (client) => {
        await client.query('BEGIN');
        try {
          const result = await work(queryable(client));
          await client.query('COMMIT');
          return result;
        } catch (error) {
          await client.query('ROLLBACK').catch(() => undefined);
          throw error;
        }
      }),
    close: () => pool.end(),
  };
  if (options.schema) await createSchema(db, options.schema);
  return db;
}

// Under an advisory lock: two processes creating the same schema at once would otherwise race on the catalog.
async function createSchema(db: InventoryDb, schema: string): Promise<void> {
  await db.session(async (session) => {
    await session.query('SELECT pg_advisory_lock(hashtext($1))', [`crawler-factory:schema:${schema}`]);
    try {
      await session.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    } finally {
      await session.query('SELECT pg_advisory_unlock(hashtext($1))', [`crawler-factory:schema:${schema}`]);
    }
  });
}
