import { describe, expect, it } from 'vitest';
import { applyShard } from '../apply-shard.js';
import { removeWhatIsGone } from '../removal.js';
import type { SyncJobOutcome } from '../removal-plan.js';
import { createSite } from '../sites.js';
import { finishSync, getSync, insertSync } from '../syncs.js';
import { newJobId } from '../../store/job-id.js';
import type { ShardEntry } from '../../core/types.js';
import { DATABASES, openPostgresTestDb, urlFacts, type TestDb, useTestDb, useSecondSession } from './inventory-fixtures.js';

// Migration 9: a URL its own sitemap alone lists has no membership row; rows appear once a second sitemap lists it.
const ORIGIN = 'https://implicit.example';
const A = `${ORIGIN}/a.xml`;
const B = `${ORIGIN}/b.xml`;

const entry = (path: string, source: string): ShardEntry => ({
  url: `${ORIGIN}${path}`,
  lastmod: '2026-01-01',
  changefreq: null,
  priority: null,
  source,
  locale: null,
});

// These tests are of memberships: a gone sitemap's URLs go at its first 404 (the grace is tested in removals).
const NO_GRACE = { goneGrace: { syncs: 1, hours: 0 } };

/** Every sitemap read whole, none failed. */
const READ_WHOLE: SyncJobOutcome = { errors: [], errorsComplete: true, unchanged: [] };
/** A answered 404 (gone), B was found unchanged (not read: its URLs are the previous sync's). */
const A_GONE_B_UNCHANGED: SyncJobOutcome = { errors: [{ kind: 'http_status', url: A, status: 404 }], errorsComplete: true, unchanged: [B] };

async function membershipRows(test: TestDb, siteId: string): Promise<string[][]> {
  const rows = await test.db.query(
    `SELECT m.url, s.url AS sitemap FROM url_sitemaps m JOIN sitemaps s USING (sitemap_id) WHERE m.site_id = $1 ORDER BY m.url, s.url`,
    [siteId],
  );
  return rows.map((row) => [String(row.url), String(row.sitemap)]);
}

const removedUrls = async (test: TestDb, siteId: string) => (await urlFacts(test.db, siteId)).filter((row) => row.removed).map((row) => row.url);

describe.each(DATABASES)('implicit memberships on $name', ({ open }) => {
  const test = useTestDb(open);

  /** One sync of `siteId` applying `shards` in order, then its removal step with `outcome` and `done`. */
  async function syncShards(siteId: string, shards: ShardEntry[][], outcome = READ_WHOLE) {
    const sync = await insertSync(test.db, { syncId: newJobId(), siteId, jobId: newJobId() });
    for (const [shard, entries] of shards.entries()) await applyShard(test.db, { syncId: sync.syncId, siteId, shard, entries });
    await removeWhatIsGone(test.db, sync, outcome);
    await finishSync(test.db, sync.syncId, 'done');
    return getSync(test.db, sync.syncId);
  }

  it('writes no membership row for a URL one sitemap lists, and keeps it while a second sitemap that newly lists it is unchanged and the first is gone', async () => {
    await createSite(test.db, { rootUrl: `${ORIGIN}/`, siteId: 'second', options: NO_GRACE });
    expect(await syncShards('second', [[entry('/u', A), entry('/w', A)]])).toMatchObject({ new: 2, removed: 0 });
    expect(await membershipRows(test, 'second')).toEqual([]);
    // B lists u too: u's implicit membership in A becomes a row beside B's.
    expect(await syncShards('second', [[entry('/u', A), entry('/w', A)], [entry('/u', B)]])).toMatchObject({ seen: 2, removed: 0 });
    expect(await membershipRows(test, 'second')).toEqual([
      [`${ORIGIN}/u`, A],
      [`${ORIGIN}/u`, B],
    ]);
    // A is gone and B is unchanged: w (A alone) goes, u (still listed by B) stays.
    expect(await syncShards('second', [], A_GONE_B_UNCHANGED)).toMatchObject({ removed: 1, kept: 1 });
    expect(await removedUrls(test, 'second')).toEqual([`${ORIGIN}/w`]);
    // B read whole and no longer listing u: u goes too.
    expect(await syncShards('second', [[entry('/x', B)]])).toMatchObject({ new: 1, removed: 1 });
    expect(await removedUrls(test, 'second')).toEqual([`${ORIGIN}/u`, `${ORIGIN}/w`]);
  });

  it('keeps a URL that moved from one sitemap to another, whichever part comes first, and removes it once neither lists it', async () => {
    await createSite(test.db, { rootUrl: `${ORIGIN}/`, siteId: 'moved', options: NO_GRACE });
    expect(await syncShards('moved', [[entry('/m', A), entry('/n', A)]])).toMatchObject({ new: 2 });
    // m moves to B (its A part, listing only n, first); n moves to B (B's part first, A still lists it after).
    expect(await syncShards('moved', [[entry('/n', A)], [entry('/m', B), entry('/n', B)]])).toMatchObject({ seen: 2, removed: 0 });
    expect(await removedUrls(test, 'moved')).toEqual([]);
    // A no longer lists n either, B lists both: nothing goes; the rows left are B's.
    expect(await syncShards('moved', [[entry('/m', B), entry('/n', B)], [entry('/o', A)]])).toMatchObject({ seen: 3, removed: 0 });
    expect(await membershipRows(test, 'moved')).toEqual([
      [`${ORIGIN}/m`, B],
      [`${ORIGIN}/n`, B],
    ]);
    expect(await syncShards('moved', [[entry('/o', A)], [entry('/n', B)]])).toMatchObject({ removed: 1 });
    expect(await removedUrls(test, 'moved')).toEqual([`${ORIGIN}/m`]);
  });

  it('counts a URL of a failed sitemap as kept unread, and brings a removed URL back with no membership row', async () => {
    await createSite(test.db, { rootUrl: `${ORIGIN}/`, siteId: 'back', options: NO_GRACE });
    await syncShards('back', [[entry('/r', A)], [entry('/s', B)]]);
    const failed = await syncShards('back', [[entry('/s', B)]], {
      errors: [{ kind: 'http_status', url: A, status: 503 }],
      errorsComplete: true,
      unchanged: [],
    });
    expect(failed).toMatchObject({ removed: 0, keptUnread: 1 });
    expect(await syncShards('back', [[entry('/s', B)]])).toMatchObject({ removed: 1 });
    expect(await syncShards('back', [[entry('/r', B), entry('/s', B)]])).toMatchObject({ returned: 1, removed: 0 });
    expect(await membershipRows(test, 'back')).toEqual([]);
    expect(await removedUrls(test, 'back')).toEqual([]);
  });
});

describe('a new URL two parts insert at once (postgres)', () => {
  const test = useTestDb(openPostgresTestDb);
  const other = useSecondSession(test);

  it('keeps both sitemaps as memberships when the other part inserted the URL first under its own sitemap', async () => {
    await createSite(test.db, { rootUrl: `${ORIGIN}/`, siteId: 'race', options: NO_GRACE });
    const sync = await insertSync(test.db, { syncId: newJobId(), siteId: 'race', jobId: newJobId() });
    await applyShard(test.db, { syncId: sync.syncId, siteId: 'race', shard: 0, entries: [entry('/x', A)] });
    // A part of A inserting u, not committed yet (the row its statement writes for a new URL A alone lists).
    await other.query('BEGIN');
    await other.query(
      `INSERT INTO urls (site_id, url, source_sitemap, first_seen_at, last_seen_at, sitemap_synced_at, changed_at, last_sync_id)
       VALUES ('race', $1, $2, now(), now(), now(), now(), $3)`,
      [`${ORIGIN}/u`, A, sync.syncId],
    );
    // B's part, which read u as new, waits for it, then finds it under A.
    const contested = applyShard(test.db, { syncId: sync.syncId, siteId: 'race', shard: 1, entries: [entry('/u', B)] });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await other.query('COMMIT');
    expect(await contested).toEqual({ appliedParts: 1, skippedParts: 0 });
    expect(await membershipRows(test, 'race')).toEqual([
      [`${ORIGIN}/u`, A],
      [`${ORIGIN}/u`, B],
    ]);
    await removeWhatIsGone(test.db, sync, READ_WHOLE);
    await finishSync(test.db, sync.syncId, 'done');

    // A gone, B unchanged: u stays (B lists it), x goes.
    const next = await insertSync(test.db, { syncId: newJobId(), siteId: 'race', jobId: newJobId() });
    await removeWhatIsGone(test.db, next, A_GONE_B_UNCHANGED);
    await finishSync(test.db, next.syncId, 'done');
    expect(await removedUrls(test, 'race')).toEqual([`${ORIGIN}/x`]);
  });
});
