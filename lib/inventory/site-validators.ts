import { z } from 'zod';
import type { InventoryDb } from './db.js';
import { BATCH_ROWS } from './apply-shard.js';
import { ValidatorsSchema, type Validators } from '../core/types.js';

const RowSchema = z.object({ key: z.string(), etag: z.string().nullable(), lastModified: z.string().nullable(), lastmod: z.string().nullable() });

/** The site's sitemap validators from its last `done` sync: what its next sync's job starts from. */
export async function readSiteValidators(db: InventoryDb, siteId: string): Promise<Validators> {
  const rows = await db.query(`SELECT sitemap_key AS "key", etag, last_modified AS "lastModified", lastmod FROM sitemap_validators WHERE site_id = $1`, [
    siteId,
  ]);
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
