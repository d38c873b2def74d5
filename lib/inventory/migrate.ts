import { z } from 'zod';
import type { InventoryDb } from './db.js';
import { sql as init } from './migrations/001-init.js';
import { sql as sitemapValidators } from './migrations/002-sitemap-validators.js';
import { sql as sitemapMembership } from './migrations/003-sitemap-membership.js';
import { sql as siteDeletion } from './migrations/004-site-deletion.js';
import { sql as schedules } from './migrations/005-schedules.js';
import { sql as partCounters } from './migrations/006-part-counters.js';
import { sql as syncSlices } from './migrations/007-sync-slices.js';
import { sql as partSightings } from './migrations/008-part-sightings.js';
import { sql as implicitMembership } from './migrations/009-implicit-membership.js';
import { sql as scopeMoves } from './migrations/010-scope-moves.js';
import { sql as goneGrace } from './migrations/011-gone-grace.js';
import { sql as lastmodInstant } from './migrations/012-lastmod-instant.js';
import { sql as sitemapRecords } from './migrations/013-sitemap-records.js';
import { createLogger } from '../utils/logger.js';

const log = createLogger('inventory:migrate');

/** Every migration in order; a new one is appended with the next version, never edited once released. */
export const MIGRATIONS: ReadonlyArray<{ version: number; name: string; sql: string }> = [
  { version: 1, name: 'init', sql: init },
  { version: 2, name: 'sitemap-validators', sql: sitemapValidators },
  { version: 3, name: 'sitemap-membership', sql: sitemapMembership },
  { version: 4, name: 'site-deletion', sql: siteDeletion },
  { version: 5, name: 'schedules', sql: schedules },
  { version: 6, name: 'part-counters', sql: partCounters },
  { version: 7, name: 'sync-slices', sql: syncSlices },
  { version: 8, name: 'part-sightings', sql: partSightings },
  { version: 9, name: 'implicit-membership', sql: implicitMembership },
  { version: 10, name: 'scope-moves', sql: scopeMoves },
  { version: 11, name: 'gone-grace', sql: goneGrace },
  { version: 12, name: 'lastmod-instant', sql: lastmodInstant },
  { version: 13, name: 'sitemap-records', sql: sitemapRecords },
];

// Postgres advisory locks take a bigint; this one is ours for the migration step (the bytes of "cfmigr1").
const MIGRATION_LOCK = '7162532556853883136';

/**
 * Applies pending migrations under a session advisory lock, so two processes starting at once apply each
 * migration exactly once; a version already in `schema_migrations` is skipped (safe to run twice).
 */
export async function applyMigrations(db: InventoryDb): Promise<number[]> {
  return db.session(async (session) => {
    await session.query(`SELECT pg_advisory_lock(${MIGRATION_LOCK}::bigint)`);
    try {
      await session.query(
        'CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
      );
      const rows = await session.query('SELECT version FROM schema_migrations');
      const applied = new Set(rows.map((row) => z.coerce.number().int().parse(row.version)));
      const done: number[] = [];
      for (const migration of MIGRATIONS.filter((m) => !applied.has(m.version))) {
        await session.query('BEGIN');
        try {
          await session.query(migration.sql);
          await session.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [migration.version, migration.name]);
          await session.query('COMMIT');
        } catch (error) {
          await session.query('ROLLBACK');
          throw error;
        }
        log.info({ event: 'migration_applied', version: migration.version, name: migration.name }, 'migration applied');
        done.push(migration.version);
      }
      return done;
    } finally {
      await session.query(`SELECT pg_advisory_unlock(${MIGRATION_LOCK}::bigint)`);
    }
  });
}
