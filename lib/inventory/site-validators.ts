import { z } from 'zod';
import type { InventoryDb } from './db.js';
import { BATCH_ROWS } from './apply-shard.js';
import { ValidatorsSchema, type Validators } from '../factory/types.js';
import { validatorKey } from '../factory/walk/validator-log.js';

const RowSchema = z.object({ key: z.string(), etag: z.string().nullable(), lastModified: z.string().nullable(), lastmod: z.string().nullable() });

/** The site's sitemap validators from its last `done` sync: what its next sync's job starts from. */
export async function readSiteValidators(db: InventoryDb, siteId: string): Promise<Validators> {
  const rows = await db.query(
    `SELECT sitemap_key AS "key", etag, last_modified AS "lastModified", lastmod FROM sitemap_validators WHERE site_id = $1`,
    [siteId],
  );
  const entries = rows.map((row) => RowSchema.parse(row)).map(({ key, ...validator }) => [key, validator] as const);
  return ValidatorsSchema.parse(Object.fromEntries(entries));
}

/** Replaces the site's validators with those of a `done` sync, in one transaction (so a crash leaves the old set whole). */
export async function replaceSiteValidators(db: InventoryDb, sync: { syncId: string; siteId: string }, validators: Validators): Promise<void> {
  const entries = Object.entries(validators);
  await db.transaction(async (tx) => {
    await tx.query('DELETE FROM sitemap_validators WHERE site_id = $1', [sync.siteId]);
    for (let start = 0; start < entries.length; start += BATCH_ROWS) {
      const part = entries.slice(start, start + BATCH_ROWS);
      await tx.query(
        `INSERT INTO sitemap_validators (site_id, sitemap_key, etag, last_modified, lastmod, sync_id)
         SELECT $1::text, *, $6::text FROM unnest($2::text[], $3::text[], $4::text[], $5::text[])`,
        [sync.siteId, part.map(([key]) => key), part.map(([, v]) => v.etag), part.map(([, v]) => v.lastModified), part.map(([, v]) => v.lastmod), sync.syncId],
      );
    }
  });
}

/**
 * The sitemaps (as the inventory spells them in `source_sitemap`) whose URLs a sync keeps because they were unchanged:
 * matched by identity key, so an index that now spells a child differently (case, default port) still keeps its URLs.
 */
export async function unchangedSources(db: InventoryDb, siteId: string, unchanged: string[]): Promise<string[]> {
  const keys = new Set(unchanged.map(validatorKey).filter((key) => key !== null));
  if (keys.size === 0) return [];
  const rows = await db.query('SELECT DISTINCT source_sitemap AS "source" FROM urls WHERE site_id = $1 AND removed_at IS NULL', [siteId]);
  return rows.map((row) => z.object({ source: z.string() }).parse(row).source).filter((source) => {
    const key = validatorKey(source);
    return key !== null && keys.has(key);
  });
}

/** Records on the sync how many sitemaps were unchanged and how many live URLs they kept (set, not added: safe to repeat). */
export async function recordKept(db: InventoryDb, sync: { syncId: string; siteId: string }, kept: { sitemaps: number; sources: string[] }): Promise<void> {
  await db.query(
    `UPDATE syncs SET unchanged_sitemaps = $3, updated_at = now(),
       kept_count = (SELECT count(*) FROM urls WHERE site_id = $2 AND removed_at IS NULL AND source_sitemap = ANY($4::text[]))
     WHERE sync_id = $1 AND state = 'running'`,
    [sync.syncId, sync.siteId, kept.sitemaps, kept.sources],
  );
}
