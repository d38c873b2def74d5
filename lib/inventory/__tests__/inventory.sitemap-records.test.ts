// Each sitemap of a site as a record, from real syncs of a loopback site: where it was found, what it gave, its
// status and failure, its streak of failed syncs and the history of its reads; listed failing first, paged by keyset.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryJobStore } from '../../store/memory-job-store.js';
import { createSite } from '../sites.js';
import type { SyncRuntime } from '../sync-driver.js';
import { getSitemapRecord, listSitemapPage } from '../sitemap-list.js';
import { recordSitemapReads } from '../sitemap-records.js';
import { DATABASES, LOOPBACK_NET, startMutableSite, syncSite, useTestDb, type MutableSite } from './inventory-fixtures.js';

describe.each(DATABASES)('sitemap records on $name', ({ open }) => {
  const test = useTestDb(open);
  let site: MutableSite;
  const store = new MemoryJobStore();
  const runtime = (): SyncRuntime => ({ db: test.db, store, net: LOOPBACK_NET });
  beforeAll(async () => {
    site = await startMutableSite(3_000, 1_000);
  });
  afterAll(async () => site?.close());

  const path = (url: string) => url.replace(site.origin, '');
  const RANK = { failed: 0, has_issues: 1, ok: 2 } as const;
  // The list's order: failing first, then by id (the order the inventory first met them); here, by URL within a status.
  const byStatusThenUrl = <T extends { status: keyof typeof RANK | null; url: string }>(records: T[]) => {
    const ranks = records.map((r) => RANK[r.status ?? 'ok']);
    expect(ranks, 'failing first').toEqual([...ranks].sort((a, b) => a - b));
    return [...records].sort((a, b) => RANK[a.status ?? 'ok'] - RANK[b.status ?? 'ok'] || a.url.localeCompare(b.url));
  };

  it('records every sitemap a sync read, failing first, with a streak and a history for one that fails', { timeout: 180_000 }, async () => {
    await createSite(test.db, { rootUrl: site.rootUrl, siteId: 'records' });
    expect(await syncSite(runtime(), 'records')).toMatchObject({ state: 'done' });
    const first = await listSitemapPage(test.db, 'records');
    expect(byStatusThenUrl(first.sitemaps).map((s) => [path(s.url), s.foundVia, s.kind, s.status, s.urls, s.children, s.failStreak])).toEqual([
      ['/sitemap.xml', 'robots', 'sitemapindex', 'ok', 0, 3, 0],
      ['/sm-0.xml', 'index', 'urlset', 'ok', 1_000, 0, 0],
      ['/sm-1.xml', 'index', 'urlset', 'ok', 1_000, 0, 0],
      ['/sm-2.xml', 'index', 'urlset', 'ok', 1_000, 0, 0],
    ]);
    expect(byStatusThenUrl(first.sitemaps)[1]).toMatchObject({ parent: `${site.origin}/sitemap.xml`, failure: null, findings: [] });
    expect(byStatusThenUrl(first.sitemaps)[1]?.bytes).toBeGreaterThan(50_000);

    site.failing.add('/sm-1.xml');
    await syncSite(runtime(), 'records');
    const sync = await syncSite(runtime(), 'records');
    expect(sync.state).toBe('done');
    const failing = await listSitemapPage(test.db, 'records');
    expect(byStatusThenUrl(failing.sitemaps).map((s) => [path(s.url), s.status, s.failStreak])).toEqual([
      ['/sm-1.xml', 'failed', 2],
      ['/sitemap.xml', 'ok', 0],
      ['/sm-0.xml', 'ok', 0],
      ['/sm-2.xml', 'ok', 0],
    ]);
    const failed = failing.sitemaps[0];
    // A failure keeps what the last read gave: its URLs are kept too (a 503 says nothing of them).
    expect(failed).toMatchObject({ kind: 'urlset', urls: 1_000, failure: { kind: 'http_status', httpStatus: 503 } });
    const detail = await getSitemapRecord(test.db, 'records', failed?.sitemapId ?? -1);
    expect(detail?.reads.map((read) => [read.status, read.urls, read.errors])).toEqual([
      ['failed', 1_000, 1],
      ['failed', 1_000, 1],
      ['ok', 1_000, 0],
    ]);
    expect(detail?.reads[0]?.syncId).toBe(sync.syncId);

    // The settle of the last sync, run again (a crash before it said done): nothing counted twice.
    await recordSitemapReads(test.db, sync, { reports: await store.readReports(sync.jobId), errors: (await store.readStatus(sync.jobId)).errors });
    const again = await getSitemapRecord(test.db, 'records', failed?.sitemapId ?? -1);
    expect(again).toMatchObject({ failStreak: 2 });
    expect(again?.reads).toHaveLength(3);

    site.failing.delete('/sm-1.xml');
    await syncSite(runtime(), 'records');
    expect(await getSitemapRecord(test.db, 'records', failed?.sitemapId ?? -1)).toMatchObject({ status: 'ok', failStreak: 0, failure: null });
  });

  it('marks a sitemap no index lists any more as vanished, with a vanished read, and back when it is listed again', { timeout: 180_000 }, async () => {
    const removed = [...site.pages.entries()].slice(2_000);
    for (const [url] of removed) site.pages.delete(url);
    await syncSite(runtime(), 'records');
    const { sitemaps } = await listSitemapPage(test.db, 'records');
    const gone = sitemaps.find((s) => path(s.url) === '/sm-2.xml');
    expect(gone?.vanishedAt).not.toBeNull();
    expect(sitemaps.filter((s) => s.vanishedAt !== null).map((s) => path(s.url))).toEqual(['/sm-2.xml']);
    expect((await getSitemapRecord(test.db, 'records', gone?.sitemapId ?? -1))?.reads[0]).toMatchObject({ status: 'vanished', urls: 1_000 });
    for (const [url, facts] of removed) site.pages.set(url, facts);
    await syncSite(runtime(), 'records');
    const back = await getSitemapRecord(test.db, 'records', gone?.sitemapId ?? -1);
    expect(back).toMatchObject({ vanishedAt: null, status: 'ok' });
    expect(back?.reads.slice(0, 2).map((read) => read.status)).toEqual(['ok', 'vanished']);
  });

  it('filters by status and kind, and pages by keyset: every sitemap once', async () => {
    expect((await listSitemapPage(test.db, 'records', { kind: 'sitemapindex' })).sitemaps.map((s) => path(s.url))).toEqual(['/sitemap.xml']);
    expect((await listSitemapPage(test.db, 'records', { status: 'failed' })).sitemaps).toEqual([]);
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 5; page += 1) {
      const got = await listSitemapPage(test.db, 'records', { limit: 3, ...(cursor === undefined ? {} : { cursor }) });
      seen.push(...got.sitemaps.map((s) => path(s.url)));
      if (got.nextCursor === null) break;
      cursor = got.nextCursor;
    }
    expect(seen.sort()).toEqual(['/sitemap.xml', '/sm-0.xml', '/sm-1.xml', '/sm-2.xml']);
    expect(seen).toHaveLength(new Set(seen).size);
    await expect(listSitemapPage(test.db, 'records', { cursor: 'bogus' })).rejects.toThrow('invalid cursor');
    expect(await getSitemapRecord(test.db, 'records', 999_999)).toBeNull();
  });
});
