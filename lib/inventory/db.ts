/** A row as a driver returns it: validated by the caller with zod before use. */
export type RawRow = Record<string, unknown>;

/** Something SQL runs on: the database, a transaction, or one session. Parameters only, never SQL built from input. */
export interface Queryable {
  query(sql: string, params?: readonly unknown[]): Promise<RawRow[]>;
}

/** The inventory database: Postgres (pg) or embedded PGlite behind the same tiny interface. */
export interface InventoryDb extends Queryable {
  readonly kind: 'postgres' | 'pglite';
  /** Runs `work` in one transaction (BEGIN ... COMMIT, ROLLBACK on a throw). */
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Runs `work` on one connection (session-level advisory locks). */
  session<T>(work: (session: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
