// A site's lastmods judged from what its syncs saw: an honest site is trusted; one that stamps every URL with the
// moment of the fetch is not, says why, and its next re-sync's job is given no index lastmods to rely on.
import { describe, expect, it } from 'vitest';
import { MemoryJobStore } from '../../store/memory-job-store.js';
import { judgeLastmods, validatorsToTrust } from '../lastmod-honesty.js';
import { validatorKey } from '../../factory/walk/validator-log.js';
import { createSite, getSite } from '../sites.js';
import { startSync, type SyncRuntime } from '../sync-driver.js';
import { LOOPBACK_NET, openPostgresTestDb, startMutableSite, syncSite, syncToEnd, useTestDb } from './inventory-fixtures.js';

describe('judgeLastmods', () => {
  const facts = { known: 0, changed: 0, dated: 0, atFetchTime: 0, olderThanFirstSeen: 0, sampled: 0 };

  it('trusts lastmods that rarely move and are not the fetch time; says nothing below 10 URLs', () => {
    expect(judgeLastmods({ ...facts, known: 1_000, changed: 12, dated: 1_000, atFetchTime: 3, olderThanFirstSeen: 990, sampled: 1_000 }, 's1')).toEqual({
      trusted: true,
      movingShare: 0.012,
      fetchTimeShare: 0.003,
      olderThanFirstSeenShare: 0.99,
      sampled: 1_000,
      syncId: 's1',
      reasons: [],
    });
    expect(judgeLastmods({ ...facts, known: 9, changed: 9, dated: 9, atFetchTime: 9, sampled: 9 }, 's1')).toMatchObject({ trusted: true, movingShare: null });
  });

  it('distrusts lastmods that all move, or that are all the moment of the fetch', () => {
    expect(judgeLastmods({ ...facts, known: 100, changed: 95 }, 's')).toMatchObject({
      trusted: false,
      reasons: ['95% of the known URLs changed since the sync before'],
    });
    expect(judgeLastmods({ ...facts, dated: 50, atFetchTime: 50, sampled: 50 }, 's')).toMatchObject({
      trusted: false,
      reasons: ['100% of the lastmods are the moment of the fetch'],
    });
  });

  it('drops the index lastmods of distrusted lastmods, and keeps ETag and Last-Modified', () => {
    const validators = { 'http://e.com/a.xml': { etag: '"a"', lastModified: 'Mon, 01 Jan 2026 00:00:00 GMT', lastmod: '2026-01-01' } };
    expect(validatorsToTrust(validators, null)).toBe(validators);
    const distrusted = judgeLastmods({ ...facts, known: 100, changed: 100 }, 's');
    expect(validatorsToTrust(validators, distrusted)).toEqual({
      'http://e.com/a.xml': { etag: '"a"', lastModified: 'Mon, 01 Jan 2026 00:00:00 GMT', lastmod: null },
    });
  });
});

describe('lastmod honesty through syncs (postgres)', () => {
  const test = useTestDb(openPostgresTestDb);

  it('trusts a site whose lastmods stay put, and distrusts one that stamps every URL at each fetch', { timeout: 120_000 }, async () => {
    const site = await startMutableSite(1_200, 600);
    const store = new MemoryJobStore();
    const runtime: SyncRuntime = { db: test.db, store, net: LOOPBACK_NET };
    try {
      await createSite(test.db, { rootUrl: site.rootUrl, siteId: 'steady' });
      await syncSite(runtime, 'steady');
      await syncSite(runtime, 'steady');
      expect((await getSite(test.db, 'steady')).lastmodHonesty).toMatchObject({ trusted: true, movingShare: 0, fetchTimeShare: 0, reasons: [] });

      await createSite(test.db, { rootUrl: site.rootUrl, siteId: 'stamped' });
      const stamp = () => {
        const now = new Date().toISOString().slice(0, 19) + 'Z';
        for (const facts of site.pages.values()) facts.lastmod = now;
      };
      stamp();
      await syncSite(runtime, 'stamped');
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      stamp();
      const second = await syncSite(runtime, 'stamped');
      const honesty = (await getSite(test.db, 'stamped')).lastmodHonesty;
      expect(honesty).toMatchObject({ trusted: false, movingShare: 1, fetchTimeShare: 1, syncId: second.syncId, sampled: 1_200 });
      expect(honesty?.reasons).toEqual(['100% of the known URLs changed since the sync before', '100% of the lastmods are the moment of the fetch']);

      // The next re-sync's job starts from the site's validators without their index lastmods, ETag kept.
      const child = `${site.origin}/sm-0.xml`;
      const key = validatorKey(child) ?? child;
      await test.db.query(
        `INSERT INTO sitemap_validators (site_id, sitemap_key, etag, last_modified, lastmod, sync_id) VALUES ('stamped', $1, '"e1"', NULL, '2026-12-01', $2)`,
        [key, second.syncId],
      );
      const next = await startSync(runtime, 'stamped');
      expect(await store.readPrevious(next.jobId, key)).toEqual({ etag: '"e1"', lastModified: null, lastmod: null });
      await syncToEnd(runtime, next.syncId);
    } finally {
      await site.close();
    }
  });
});
