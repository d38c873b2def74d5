import { z } from 'zod';
import type { InventoryDb } from './db.js';
import { BATCH_ROWS } from './apply-shard.js';
import { planRemovals, type KnownSitemap, type RemovalPlan, type SyncOutcome } from './removal-plan.js';

// A membership is dropped when its sitemap is gone ($5), or was read whole and did not list the URL this sync ($6, $7).
const dropped = (m: string) => `(${m}.sitemap_id = ANY($5::int[]) OR (${m}.sitemap_id = ANY($6::int[]) AND ${m}.seen_seq <> $7))`;

// One batch of at most 500 dropped memberships, in the membership key's order after ($3, $4): deleted, and each URL
// that no sitemap lists any more is stamped removed, with a history row, counted on the sync. One transaction.
const REMOVE_BATCH_SQL = `
WITH dead AS (
  SELECT x.url, x.sitemap_id FROM url_sitemaps x
  WHERE x.site_id = $2 AND (x.url, x.sitemap_id) > ($3::text, $4::int) AND ${dropped('x')}
  ORDER BY x.url, x.sitemap_id LIMIT ${BATCH_ROWS}
  FOR UPDATE
),
deleted AS (
  DELETE FROM url_sitemaps m USING dead d WHERE m.site_id = $2 AND m.url = d.url AND m.sitemap_id = d.sitemap_id
),
-- The statement sees the memberships as they were before the DELETE: the ones that survive are those not dropped.
orphans AS (
  SELECT DISTINCT d.url FROM dead d
  WHERE NOT EXISTS (SELECT 1 FROM url_sitemaps m WHERE m.site_id = $2 AND m.url = d.url AND NOT ${dropped('m')})
),
marked AS (
  UPDATE urls u SET removed_at = now(), changed_at = now()
  FROM orphans o WHERE u.site_id = $2 AND u.url = o.url AND u.removed_at IS NULL
  RETURNING u.url
),
hist AS (
  INSERT INTO url_history (site_id, url, sync_id, event) SELECT $2, url, $1, 'removed' FROM marked ORDER BY url
),
last AS (SELECT url, sitemap_id FROM dead ORDER BY url DESC, sitemap_id DESC LIMIT 1)
UPDATE syncs SET removed_count = removed_count + (SELECT count(*) FROM marked), updated_at = now()
WHERE sync_id = $1
RETURNING (SELECT count(*) FROM dead)::int AS dead, (SELECT url FROM last) AS "lastUrl", (SELECT sitemap_id FROM last) AS "lastId"`;

const BatchSchema = z.object({ dead: z.number().int(), lastUrl: z.string().nullable(), lastId: z.coerce.number().int().nullable() });

/** The sync's sequence number and the site's known sitemaps: what `planRemovals` decides over. */
export async function readKnownSitemaps(db: InventoryDb, sync: { syncId: string; siteId: string }): Promise<{ seq: number; sitemaps: KnownSitemap[] }> {
  const [row] = await db.query('SELECT seq FROM syncs WHERE sync_id = $1', [sync.syncId]);
  const seq = z.object({ seq: z.coerce.number().int() }).parse(row).seq;
  const rows = await db.query('SELECT sitemap_id AS id, url, seen_seq AS "seenSeq" FROM sitemaps WHERE site_id = $1', [sync.siteId]);
  const sitemaps = rows.map((r) => z.object({ id: z.coerce.number().int(), url: z.string(), seenSeq: z.coerce.number().int() }).parse(r));
  return { seq, sitemaps };
}

/**
 * Records on the sync how many sitemaps were unchanged, how many live URLs they kept, and how many live URLs this sync
 * did not see (no membership stamped with its sequence number `seq`) were kept because their sitemap failed or could not
 * be proven gone (set, not added: safe to repeat).
 */
export async function recordKept(
  db: InventoryDb,
  sync: { syncId: string; siteId: string; seq: number },
  plan: RemovalPlan,
  unchangedSitemaps: number,
): Promise<void> {
  await db.query(
    `UPDATE syncs SET unchanged_sitemaps = $3, updated_at = now(),
       kept_count = CASE WHEN cardinality($4::int[]) = 0 THEN 0 ELSE (
         SELECT count(*) FROM urls u WHERE u.site_id = $2 AND u.removed_at IS NULL
           AND EXISTS (SELECT 1 FROM url_sitemaps m WHERE m.site_id = $2 AND m.url = u.url AND m.sitemap_id = ANY($4::int[]))) END,
       kept_unread_count = CASE WHEN cardinality($5::int[]) = 0 THEN 0 ELSE (
         SELECT count(*) FROM urls u WHERE u.site_id = $2 AND u.removed_at IS NULL
           AND NOT EXISTS (SELECT 1 FROM url_sitemaps m WHERE m.site_id = $2 AND m.url = u.url AND m.seen_seq = $6)
           AND EXISTS (SELECT 1 FROM url_sitemaps m WHERE m.site_id = $2 AND m.url = u.url AND m.sitemap_id = ANY($5::int[]))
           AND NOT EXISTS (SELECT 1 FROM url_sitemaps m WHERE m.site_id = $2 AND m.url = u.url AND m.sitemap_id = ANY($4::int[]))) END
     WHERE sync_id = $1 AND state = 'running'`,
    [sync.syncId, sync.siteId, unchangedSitemaps, plan.unchanged, plan.unread, sync.seq],
  );
}

/**
 * Drops the memberships `plan` says are gone (its `gone` sitemaps', and those its `read` sitemaps did not list in sync
 * `seq`) and marks removed (never deleted) each URL no sitemap lists any more, 500 memberships a transaction.
 * Idempotent: a crash half-way is finished by the next call, which finds the dropped memberships already gone.
 */
export async function removeUnlisted(db: InventoryDb, sync: { syncId: string; siteId: string; seq: number }, plan: RemovalPlan): Promise<void> {
  if (plan.gone.length === 0 && plan.read.length === 0) return;
  // Keyset over the membership key: each batch starts after the last membership of the one before, never from the top.
  let after: { url: string; id: number } = { url: '', id: 0 };
  for (;;) {
    const params = [sync.syncId, sync.siteId, after.url, after.id, plan.gone, plan.read, sync.seq];
    const [row] = await db.transaction((tx) => tx.query(REMOVE_BATCH_SQL, params));
    const { dead, lastUrl, lastId } = BatchSchema.parse(row);
    if (dead < BATCH_ROWS || lastUrl === null || lastId === null) return;
    after = { url: lastUrl, id: lastId };
  }
}

/**
 * The removal step of a `done` sync whose shards are all in: each known sitemap's fate (read whole, gone, unchanged or
 * unread: `planRemovals`), the kept counts, then the URLs no sitemap lists any more are removed. Returns the plan.
 */
export async function removeWhatIsGone(db: InventoryDb, sync: { syncId: string; siteId: string }, job: Omit<SyncOutcome, 'seq'>): Promise<RemovalPlan> {
  const { seq, sitemaps } = await readKnownSitemaps(db, sync);
  const plan = planRemovals(sitemaps, { ...job, seq });
  await recordKept(db, { ...sync, seq }, plan, job.unchanged.length);
  await removeUnlisted(db, { ...sync, seq }, plan);
  return plan;
}
