import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryJobStore } from '../../store/memory-job-store.js';
import { applyMigrations } from '../migrate.js';
import { createSite } from '../sites.js';
import { startSync } from '../sync-driver.js';
import { applyShard } from '../apply-shard.js';
import { insertSync } from '../syncs.js';
import { explainListUrls } from '../url-query.js';
import { newJobId } from '../../store/job-id.js';
import { advanceSync, stopSync } from '../sync-driver.js';
import { MAX_CLAIMS_WITHOUT_PROGRESS } from '../../factory/jobs/stall-policy.js';
import { getJobStatus } from '../../factory/jobs/job-control.js';
import { claimAndAbandon } from '../../store/__tests__/store-fixtures.js';
import {
  DATABASES,
  PGLITE_START_MS,
  LOOPBACK_NET,
  historyFacts,
  startMutableSite,
  syncSite,
  urlFacts,
  type MutableSite,
  useTestDb,
} from './inventory-fixtures.js';

describe.each(DATABASES)('inventory on $name', ({ open }) => {
  let site: MutableSite;
  const test = useTestDb(open);
  const store = new MemoryJobStore();

  beforeAll(async () => {
    site = await startMutableSite(1_500);
  }, PGLITE_START_MS);
  afterAll(async () => {
    await site?.close();
  });

  it('applies migrations once: a second run applies nothing', async () => {
    expect(await applyMigrations(test.db)).toEqual([]);
  });

  it('keeps exact urls and history over syncs with changed, removed, added and returning URLs', async () => {
    const runtime = { db: test.db, store, net: LOOPBACK_NET };
    await createSite(test.db, { rootUrl: site.rootUrl, siteId: 'mutable' });
    const first = await syncSite(runtime, 'mutable');
    expect(first).toMatchObject({ state: 'done', seen: 1_500, new: 1_500, changed: 0, removed: 0, shardsWritten: 2, shardsApplied: 2 });
    expect(await test.db.query('SELECT shard, part, rows FROM sync_parts WHERE sync_id = $1 ORDER BY shard, part', [first.syncId])).toHaveLength(3);
    expect(await historyFacts(test.db, 'mutable')).toEqual([]);

    const urls = [...site.pages.keys()].sort();
    const lastmodChanged = urls.slice(0, 10);
    const priorityChanged = urls.slice(10, 15);
    const removed = urls.slice(100, 120);
    for (const url of lastmodChanged) site.pages.set(url, { ...site.pages.get(url)!, lastmod: '2026-02-02' });
    for (const url of priorityChanged) site.pages.set(url, { ...site.pages.get(url)!, priority: 0.9 });
    for (const url of removed) site.pages.delete(url);
    const added = Array.from({ length: 15 }, (_, i) => `${site.origin}/blog/new-${i}`);
    for (const url of added) site.pages.set(url, { lastmod: null, changefreq: null, priority: null });

    const second = await syncSite(runtime, 'mutable');
    expect(second).toMatchObject({ state: 'done', seen: 1_495, new: 15, changed: 15, removed: 20, returned: 0 });
    const history = await historyFacts(test.db, 'mutable');
    const expected = [
      ...lastmodChanged.map((url) => ({ url, syncId: second.syncId, event: 'lastmod', oldValue: '2026-01-01', newValue: '2026-02-02' })),
      ...priorityChanged.map((url) => ({ url, syncId: second.syncId, event: 'priority', oldValue: '0.5', newValue: '0.9' })),
      ...removed.map((url) => ({ url, syncId: second.syncId, event: 'removed', oldValue: null, newValue: null })),
    ].sort((a, b) => (a.url < b.url ? -1 : a.url > b.url ? 1 : 0));
    expect(history).toEqual(expected);

    const facts = await urlFacts(test.db, 'mutable');
    expect(facts).toHaveLength(1_515);
    const expectedFacts = [...site.pages.entries()]
      .map(([url, page]) => ({ url, lastmod: page.lastmod, changefreq: page.changefreq, priority: page.priority, removed: false }))
      .concat(removed.map((url) => ({ url, lastmod: '2026-01-01', changefreq: 'weekly', priority: 0.5, removed: true })))
      .sort((a, b) => (a.url < b.url ? -1 : a.url > b.url ? 1 : 0));
    expect(facts.map(({ locale: _l, pathPrefix: _p, ...rest }) => rest)).toEqual(expectedFacts);
    expect(facts.find((row) => String(row.url).includes('/fr/shop/'))).toMatchObject({ locale: 'fr', pathPrefix: '/shop/' });

    // Five removed URLs come back: one `returned` row each, removed_at cleared; nothing else changes.
    for (const url of removed.slice(0, 5)) site.pages.set(url, { lastmod: '2026-01-01', changefreq: 'weekly', priority: 0.5 });
    const third = await syncSite(runtime, 'mutable');
    expect(third).toMatchObject({ state: 'done', new: 0, changed: 0, returned: 5, removed: 0 });
    const returned = (await historyFacts(test.db, 'mutable')).filter((row) => row.syncId === third.syncId);
    expect(returned).toEqual(removed.slice(0, 5).map((url) => ({ url, syncId: third.syncId, event: 'returned', oldValue: null, newValue: null })));
    expect((await urlFacts(test.db, 'mutable')).filter((row) => row.removed)).toHaveLength(15);
  });

  it('removes nothing when a sync is stopped', async () => {
    const runtime = { db: test.db, store, net: LOOPBACK_NET };
    await createSite(test.db, { rootUrl: site.rootUrl, siteId: 'stopped' });
    await syncSite(runtime, 'stopped');
    for (const url of [...site.pages.keys()].slice(0, 50)) site.pages.delete(url);
    const sync = await startSync(runtime, 'stopped');
    const stopped = await stopSync(runtime, sync.syncId);
    expect(stopped.state).toBe('stopped');
    expect((await urlFacts(test.db, 'stopped')).filter((row) => row.removed)).toEqual([]);
  });

  it('fails a sync whose job stalled (saying on what), stops the job and removes nothing', async () => {
    const runtime = { db: test.db, store, net: LOOPBACK_NET };
    await createSite(test.db, { rootUrl: site.rootUrl, siteId: 'stalled' });
    await syncSite(runtime, 'stalled');
    for (const url of [...site.pages.keys()].slice(0, 50)) site.pages.delete(url);
    const sync = await startSync(runtime, 'stalled');
    // Its discovery was claimed by workers killed before they got anywhere, as often as the stall policy allows.
    await claimAndAbandon(store, sync.jobId, MAX_CLAIMS_WITHOUT_PROGRESS);
    const failed = await advanceSync(runtime, sync.syncId, { budgetMs: 1_000 });
    expect(failed).toMatchObject({ state: 'failed', message: expect.stringContaining(`the job stalled on ${site.rootUrl}`) });
    expect((await getJobStatus(store, sync.jobId)).state).toBe('stopped');
    expect((await urlFacts(test.db, 'stalled')).filter((row) => row.removed)).toEqual([]);
  });

  it('serves every URL filter from an index on a site of 20,000 URLs (EXPLAIN)', { timeout: 300_000 }, async () => {
    await createSite(test.db, { rootUrl: 'https://big.example/', siteId: 'big' });
    const sync = await insertSync(test.db, { syncId: newJobId(), siteId: 'big', jobId: newJobId() });
    const sections = ['/blog/', '/docs/', '/fr/shop/', '/de/shop/', '/news/'];
    for (let shard = 0; shard < 20; shard += 1) {
      const entries = Array.from({ length: 1_000 }, (_, i) => ({
        url: `https://big.example${sections[i % 5]}p-${shard}-${i}`,
        lastmod: '2026-01-01',
        changefreq: null,
        priority: null,
        source: 'https://big.example/sitemap.xml',
        locale: null,
      }));
      await applyShard(test.db, { syncId: sync.syncId, siteId: 'big', shard, entries });
    }
    await test.db.query('ANALYZE urls');
    const plans: Record<string, string> = {};
    const queries = {
      all: {},
      prefix: { prefix: '/blog/' },
      locale: { locale: 'fr' },
      changedSince: { changedSince: '2030-01-01T00:00:00Z' },
      removed: { removed: true },
    };
    for (const [name, query] of Object.entries(queries)) plans[name] = await explainListUrls(test.db, 'big', query);
    for (const [name, plan] of Object.entries(plans)) {
      expect(plan, `${name}:\n${plan}`).toMatch(/Index/);
      expect(plan, `${name}:\n${plan}`).not.toMatch(/Seq Scan/);
    }
    if (process.env.PRINT_PLANS) process.stderr.write(`${JSON.stringify(plans, null, 2)}\n`);
  });

  it('refuses a second running sync of a site with a conflict naming the running one', async () => {
    const runtime = { db: test.db, store, net: LOOPBACK_NET };
    await createSite(test.db, { rootUrl: site.rootUrl, siteId: 'busy' });
    const running = await startSync(runtime, 'busy');
    await expect(startSync(runtime, 'busy')).rejects.toMatchObject({ kind: 'conflict', message: expect.stringContaining(running.syncId) });
    await stopSync(runtime, running.syncId);
  });
});
