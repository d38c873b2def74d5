import { describe, expect, it } from 'vitest';
import { applyShard } from '../apply-shard.js';
import { openInventoryDb } from '../open-db.js';
import { createSite } from '../sites.js';
import { finishSync, getSync, insertSync, listSyncs } from '../syncs.js';
import { newJobId } from '../../store/job-id.js';
import type { ShardEntry } from '../../core/types.js';
import { applyMigrationsBefore, openPostgresTestDb, TEST_DATABASE_URL, useSecondSession, useTestDb, useTestSchema } from './inventory-fixtures.js';

// Shard n: 1000 URLs of one sitemap (two parts of 500); `lastmod` lets a later shard change them.
function shard(n: number, lastmod = '2026-01-01'): ShardEntry[] {
  return Array.from({ length: 1_000 }, (_, i) => ({
    url: `https://parts.example/p/${n * 1_000 + i}`,
    lastmod,
    changefreq: null,
    priority: null,
    source: 'https://parts.example/sitemap.xml',
    locale: null,
  }));
}

describe('counters per part (postgres)', () => {
  const test = useTestDb(openPostgresTestDb);
  const locker = useSecondSession(test);
  let firstSyncId = '';

  it('applies parts while another session holds the sync row locked, and sums their counters on read', async () => {
    await createSite(test.db, { rootUrl: 'https://parts.example/', siteId: 'parts' });
    const sync = await insertSync(test.db, { syncId: newJobId(), siteId: 'parts', jobId: newJobId() });
    firstSyncId = sync.syncId;
    // A part that wrote the sync row would wait here for the locker's commit (and the test would time out).
    await locker.query('BEGIN');
    await locker.query('UPDATE syncs SET updated_at = now() WHERE sync_id = $1', [sync.syncId]);
    const applied = await Promise.all([0, 1, 2].map((n) => applyShard(test.db, { syncId: sync.syncId, siteId: 'parts', shard: n, entries: shard(n) })));
    await locker.query('ROLLBACK');
    expect(applied).toEqual([0, 1, 2].map(() => ({ appliedParts: 2, skippedParts: 0 })));
    // Applied again (a second worker, a retry): every part's key is there, nothing is counted twice.
    expect(await applyShard(test.db, { syncId: sync.syncId, siteId: 'parts', shard: 1, entries: shard(1) })).toEqual({ appliedParts: 0, skippedParts: 2 });
    expect(await getSync(test.db, sync.syncId)).toMatchObject({ shardsApplied: 3, seen: 3_000, new: 3_000, changed: 0, returned: 0 });
    expect((await listSyncs(test.db, 'parts'))[0]).toMatchObject({ syncId: sync.syncId, shardsApplied: 3, new: 3_000 });
  });

  it('writes no URL row for an unchanged URL, and one history row per changed one', async () => {
    await finishSync(test.db, firstSyncId, 'done');
    const sync = await insertSync(test.db, { syncId: newJobId(), siteId: 'parts', jobId: newJobId() });
    const versions = async () => test.db.query(`SELECT url, xmin::text AS v FROM urls WHERE site_id = 'parts' ORDER BY url`);
    const before = await versions();
    await applyShard(test.db, { syncId: sync.syncId, siteId: 'parts', shard: 0, entries: shard(0) });
    await applyShard(test.db, { syncId: sync.syncId, siteId: 'parts', shard: 1, entries: shard(1, '2026-02-01') });
    const after = await versions();
    const rewritten = after.filter((row, i) => row.v !== before[i]?.v).map((row) => String(row.url));
    expect(rewritten).toEqual(
      shard(1)
        .map((entry) => entry.url)
        .sort(),
    );
    expect(await getSync(test.db, sync.syncId)).toMatchObject({ shardsApplied: 2, seen: 2_000, new: 0, changed: 1_000 });
    const history = await test.db.query(`SELECT count(*)::int AS n FROM url_history WHERE sync_id = $1 AND event = 'lastmod'`, [sync.syncId]);
    expect(history).toEqual([{ n: 1_000 }]);
  });
});

describe('migration 6 on an inventory written before it (postgres)', () => {
  const test = useTestSchema('inv_mig6');
  const { schema, admin } = test;

  it("carries each sync's counters over to its parts, so the sums read as the columns did", async () => {
    await applyMigrationsBefore(test, 6);
    await admin.query(`INSERT INTO sites (site_id, root_url) VALUES ('old', 'https://o.example/')`);
    await admin.query(
      `INSERT INTO syncs (sync_id, site_id, job_id, state, shards_applied, seen_count, new_count, changed_count, returned_count, removed_count, filtered_count)
       VALUES ('s1', 'old', 'j1', 'done', 2, 1500, 1200, 250, 50, 7, 3), ('s2', 'old', 'j2', 'stopped', 0, 0, 0, 0, 0, 0, 0)`,
    );
    await admin.query(`INSERT INTO sync_parts (sync_id, shard, part, parts, rows) VALUES ('s1', 0, 0, 1, 1000), ('s1', 1, 0, 1, 500)`);

    const db = await openInventoryDb({ databaseUrl: TEST_DATABASE_URL, schema });
    expect(await getSync(db, 's1')).toMatchObject({ shardsApplied: 2, seen: 1_500, new: 1_200, changed: 250, returned: 50, removed: 7, filtered: 3 });
    expect(await getSync(db, 's2')).toMatchObject({ shardsApplied: 0, seen: 0, new: 0, changed: 0, returned: 0, removed: 0, filtered: 0 });
    await db.close();
  });
});
