import pg from 'pg';
import { z } from 'zod';
import { toDatabaseFailure } from '../../inventory/db-errors.js';

/** What running `work` in a host's slot gave: its value, or `busy` when every slot of the host is held. */
export type SlotOutcome<T> = { ran: true; value: T } | { ran: false };

const TakenSchema = z.object({ taken: z.boolean() });

/**
 * At most `perHost` slices of one site host at once across every worker on one database: slot `i` of a host is a
 * session advisory lock on (the host's key, i), held on a connection of this class's own pool for as long as the
 * slice runs. A worker killed mid-slice loses its connection, and Postgres frees its slots at once: no lease to wait out.
 * `scope` (the queue's name: one per inventory schema) keeps inventories sharing a database apart. Two hosts whose
 * keys hash alike share their slots: politeness errs on the side of fewer requests.
 */
export class HostSlots {
  private readonly pool: pg.Pool;

  constructor(
    databaseUrl: string,
    private readonly scope: string,
    private readonly perHost: number,
    connections: number,
  ) {
    this.pool = new pg.Pool({ connectionString: databaseUrl, max: Math.max(1, connections), application_name: 'crawler-factory-host-slots' });
    // An idle connection's error (a server restart) must not crash the worker; the next slice connects again.
    this.pool.on('error', () => undefined);
  }

  /** Runs `work` holding one of `host`'s slots, or answers `busy` at once (without running it) when all are held. */
  async withSlot<T>(host: string, work: () => Promise<T>): Promise<SlotOutcome<T>> {
    const client = await this.pool.connect().catch((error: unknown) => {
      throw toDatabaseFailure(error);
    });
    const key = `crawler-factory:host:${this.scope}:${host}`;
    // A connection whose locks cannot be told apart any more (a query on it failed, or answered what no lock call
    // answers) is destroyed, which frees them.
    let broken: Error | undefined;
    const lockCall = async (sql: string, slot: number): Promise<boolean> => {
      try {
        return TakenSchema.parse((await client.query(sql, [key, slot])).rows[0]).taken;
      } catch (error) {
        broken = error instanceof Error ? error : new Error(String(error));
        throw toDatabaseFailure(error);
      }
    };
    let held: number | null = null;
    try {
      for (let slot = 0; slot < this.perHost && held === null; slot += 1) {
        if (await lockCall('SELECT pg_try_advisory_lock(hashtext($1), $2) AS taken', slot)) held = slot;
      }
      if (held === null) return { ran: false };
      return { ran: true, value: await work() };
    } finally {
      if (held !== null) await lockCall('SELECT pg_advisory_unlock(hashtext($1), $2) AS taken', held).catch(() => undefined);
      client.release(broken);
    }
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}
