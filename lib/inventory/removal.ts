import { z } from 'zod';
import type { InventoryDb } from './db.js';
import { BATCH_ROWS } from './apply-shard.js';
import { DEFAULT_GONE_GRACE, planRemovals, type KnownSitemap, type RemovalPlan, type SyncJobOutcome } from './removal-plan.js';
import { getSite, SiteOptionsSchema } from './sites.js';
import { isRunning } from './running-sync.js';

// The memberships the sync drops are queued once, set-based: those of its gone sitemaps, and those its read sitemaps did
// not list: neither seen by a part of it (a row stamped with its sequence number $4, an implicit membership whose URL
// row it wrote: `url_memberships`, migration 9) nor among the sightings its parts recorded
// (lib/inventory/apply-part-sql.ts). Safe to run again: a dropped membership is gone, a queued one stays queued. Only
// while the sync runs: its end deletes its sightings in the statement that ends it, so a second worker's removal step
// that comes after the end queues nothing, instead of taking every membership for unseen.
const RUNNING = `EXISTS (SELECT 1 FROM syncs y WHERE y.sync_id = $1 AND ${isRunning('y')})`;

const QUEUE_GONE_SQL = `
INSERT INTO sync_drops (sync_id, url, sitemap_id)
SELECT $1, m.url, m.sitemap_id FROM url_memberships m WHERE ${RUNNING} AND m.site_id = $2 AND m.sitemap_id = ANY($3::int[])
ON CONFLICT DO NOTHING`;

const QUEUE_UNLISTED_SQL = `
INSERT INTO sync_drops (sync_id, url, sitemap_id)
SELECT $1, m.url, m.sitemap_id FROM url_memberships m
WHERE ${RUNNING} AND m.site_id = $2 AND m.sitemap_id = ANY($3::int[]) AND m.seen_seq IS DISTINCT FROM $4 AND m.written_in IS DISTINCT FROM $1
  AND NOT EXISTS (
    SELECT 1 FROM part_sightings p CROSS JOIN LATERAL unnest(p.urls) AS s(url)
    WHERE p.sync_id = $1 AND p.sitemap_id = m.sitemap_id AND s.url = m.url
  )
ON CONFLICT DO NOTHING`;

/**
 * Runs one statement that joins a sync's sightings with the site's rows, as hash or merge joins only: the sightings
 * are a table the sync itself filled (its statistics stale, an array row counted as one), and a nested loop over them
 * would unpack every sighting once per row of the site. The cost that rules nested loops out would also ask for JIT
 * compilation, which costs more than the statement.
 */
async function joinSightings(db: InventoryDb, sql: string, params: readonly unknown[]): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.query('SET LOCAL enable_nestloop = off');
    await tx.query('SET LOCAL jit = off');
    await tx.query(sql, params);
  });
}

// One batch of at most 500 queued drops, in key order: each membership deleted with its queue row (an implicit one has
// no row: its URL has no other membership), and each URL that no sitemap lists any more is stamped removed, with a
// history row, counted on the sync. One transaction.
const REMOVE_BATCH_SQL = `
WITH dead AS (
  SELECT q.url, q.sitemap_id FROM sync_drops q WHERE q.sync_id = $1 ORDER BY q.url, q.sitemap_id LIMIT ${BATCH_ROWS}
  FOR UPDATE
),
deleted AS (
  DELETE FROM url_sitemaps m USING dead d WHERE m.site_id = $2 AND m.url = d.url AND m.sitemap_id = d.sitemap_id
),
dequeued AS (
  DELETE FROM sync_drops q USING dead d WHERE q.sync_id = $1 AND q.url = d.url AND q.sitemap_id = d.sitemap_id
),
-- The statement sees the memberships and the queue as they were before the DELETEs: survivors are those not queued.
orphans AS (
  SELECT DISTINCT d.url FROM dead d
  WHERE NOT EXISTS (
    SELECT 1 FROM url_sitemaps m WHERE m.site_id = $2 AND m.url = d.url
      AND NOT EXISTS (SELECT 1 FROM sync_drops q WHERE q.sync_id = $1 AND q.url = m.url AND q.sitemap_id = m.sitemap_id)
  )
),
marked AS (
  UPDATE urls u SET removed_at = now(), changed_at = now()
  FROM orphans o WHERE u.site_id = $2 AND u.url = o.url AND u.removed_at IS NULL
  RETURNING u.url
),
hist AS (
  INSERT INTO url_history (site_id, url, sync_id, event) SELECT $2, url, $1, 'removed' FROM marked ORDER BY url
)
UPDATE syncs SET removed_count = removed_count + (SELECT count(*) FROM marked), updated_at = now()
WHERE sync_id = $1
RETURNING (SELECT count(*) FROM dead)::int AS dead`;

const BatchSchema = z.object({ dead: z.number().int() });

const KnownSitemapRowSchema = z.object({
  id: z.coerce.number().int(),
  url: z.string(),
  seenSeq: z.coerce.number().int(),
  goneSince: z.coerce
    .date()
    .nullable()
    .transform((date) => date?.getTime() ?? null),
  goneSyncs: z.coerce.number().int().nonnegative(),
  goneSeq: z.coerce.number().int().nonnegative(),
});

/**
 * The sync's sequence number and the site's known sitemaps (those that listed URLs once): what `planRemovals` decides
 * over. A sitemap recorded only as read or failed (an index, an empty or never-read sitemap: `status` set, no URLs,
 * never seen listing any) is not one: a failed index must leave its children's fate unknown.
 */
export async function readKnownSitemaps(db: InventoryDb, sync: { syncId: string; siteId: string }): Promise<{ seq: number; sitemaps: KnownSitemap[] }> {
  const [row] = await db.query('SELECT seq FROM syncs WHERE sync_id = $1', [sync.syncId]);
  const seq = z.object({ seq: z.coerce.number().int() }).parse(row).seq;
  const rows = await db.query(
    `SELECT sitemap_id AS id, url, seen_seq AS "seenSeq", gone_since AS "goneSince", gone_syncs AS "goneSyncs", gone_seq AS "goneSeq" FROM sitemaps
     WHERE site_id = $1 AND (status IS NULL OR url_count > 0 OR seen_seq > 0)`,
    [sync.siteId],
  );
  return { seq, sitemaps: rows.map((row) => KnownSitemapRowSchema.parse(row)) };
}

/**
 * Records on the sync how many sitemaps were unchanged, how many live URLs they kept, and how many live URLs this sync
 * did not see (no membership it stamped with its sequence number `seq` or wrote the URL row of, none among its
 * sightings) were kept because their sitemap failed or could not be proven gone (set, not added: safe to repeat).
 */
export async function recordKept(
  db: InventoryDb,
  sync: { syncId: string; siteId: string; seq: number },
  plan: RemovalPlan,
  unchangedSitemaps: number,
): Promise<void> {
  await joinSightings(
    db,
    `UPDATE syncs SET unchanged_sitemaps = $3, updated_at = now(),
       kept_count = CASE WHEN cardinality($4::int[]) = 0 THEN 0 ELSE (
         SELECT count(*) FROM urls u WHERE u.site_id = $2 AND u.removed_at IS NULL
           AND EXISTS (SELECT 1 FROM url_memberships m WHERE m.site_id = $2 AND m.url = u.url AND m.sitemap_id = ANY($4::int[]))) END,
       kept_unread_count = CASE WHEN cardinality($5::int[]) = 0 THEN 0 ELSE (
         SELECT count(*) FROM urls u WHERE u.site_id = $2 AND u.removed_at IS NULL
           AND NOT EXISTS (SELECT 1 FROM url_memberships m WHERE m.site_id = $2 AND m.url = u.url AND (m.seen_seq = $6 OR m.written_in = $1))
           AND NOT EXISTS (SELECT 1 FROM part_sightings p CROSS JOIN LATERAL unnest(p.urls) AS s(url) WHERE p.sync_id = $1 AND s.url = u.url)
           AND EXISTS (SELECT 1 FROM url_memberships m WHERE m.site_id = $2 AND m.url = u.url AND m.sitemap_id = ANY($5::int[]))
           AND NOT EXISTS (SELECT 1 FROM url_memberships m WHERE m.site_id = $2 AND m.url = u.url AND m.sitemap_id = ANY($4::int[]))) END
     WHERE sync_id = $1 AND ${isRunning()}`,
    [sync.syncId, sync.siteId, unchangedSitemaps, plan.unchanged, plan.unread, sync.seq],
  );
}

/**
 * Drops the memberships `plan` says are gone (its `gone` sitemaps', and those its `read` sitemaps did not list in sync
 * `seq`) and marks removed (never deleted) each URL no sitemap lists any more: the drops are queued in one statement,
 * then applied 500 a transaction. Idempotent: a crash half-way is finished by the next call, which queues only the
 * memberships still there and finds the rest of the queue as it was left.
 */
export async function removeUnlisted(db: InventoryDb, sync: { syncId: string; siteId: string; seq: number }, plan: RemovalPlan): Promise<void> {
  if (plan.gone.length === 0 && plan.read.length === 0) return;
  if (plan.gone.length > 0) await db.query(QUEUE_GONE_SQL, [sync.syncId, sync.siteId, plan.gone]);
  if (plan.read.length > 0) await joinSightings(db, QUEUE_UNLISTED_SQL, [sync.syncId, sync.siteId, plan.read, sync.seq]);
  for (;;) {
    const [row] = await db.transaction((tx) => tx.query(REMOVE_BATCH_SQL, [sync.syncId, sync.siteId]));
    if (BatchSchema.parse(row).dead < BATCH_ROWS) return;
  }
}

/**
 * The removal step of a `done` sync whose shards are all in: each known sitemap's fate (read whole, gone, unchanged or
 * unread: `planRemovals`), the kept counts, then the URLs no sitemap lists any more are removed. Returns the plan.
 */
export async function removeWhatIsGone(db: InventoryDb, sync: { syncId: string; siteId: string }, job: SyncJobOutcome): Promise<RemovalPlan> {
  const { seq, sitemaps } = await readKnownSitemaps(db, sync);
  const grace = SiteOptionsSchema.parse((await getSite(db, sync.siteId)).options).goneGrace ?? DEFAULT_GONE_GRACE;
  const plan = planRemovals(sitemaps, { ...job, seq, grace, now: Date.now() });
  await recordKept(db, { ...sync, seq }, plan, job.unchanged.length);
  await countGoneStreaks(db, { ...sync, seq }, plan);
  await removeUnlisted(db, { ...sync, seq }, plan);
  return plan;
}

/**
 * Counts this sync in each gone sitemap's streak (pending or past its grace), once per sync (`gone_seq`), and ends the
 * streak of each one read or unchanged: a sitemap that answers again starts its grace afresh.
 */
async function countGoneStreaks(db: InventoryDb, sync: { siteId: string; seq: number }, plan: RemovalPlan): Promise<void> {
  const gone = [...plan.gone, ...plan.pending];
  const answered = [...plan.read, ...plan.unchanged];
  if (gone.length === 0 && answered.length === 0) return;
  await db.query(
    `UPDATE sitemaps SET
       gone_since = CASE WHEN sitemap_id = ANY($2::int[]) THEN coalesce(gone_since, now()) ELSE NULL END,
       gone_syncs = CASE WHEN sitemap_id = ANY($2::int[]) THEN gone_syncs + 1 ELSE 0 END,
       gone_seq = $4
     WHERE site_id = $1 AND gone_seq < $4
       AND (sitemap_id = ANY($2::int[]) OR (sitemap_id = ANY($3::int[]) AND gone_syncs > 0))`,
    [sync.siteId, gone, answered, sync.seq],
  );
}
