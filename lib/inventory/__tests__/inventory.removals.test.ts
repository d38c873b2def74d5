import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoopbackServer, type CannedResponse, type LoopbackServer } from '../../demo/loopback-server.js';
import { MemoryJobStore } from '../../store/memory-job-store.js';
import { createSite, updateSite, type SiteOptions } from '../sites.js';
import { startSync } from '../sync-driver.js';
import { getSyncDetail } from '../syncs.js';
import { DATABASES, LOOPBACK_NET, PGLITE_START_MS, historyFacts, syncToEnd, urlFacts, useTestDb } from './inventory-fixtures.js';

/** How a sitemap answers: its document, a 503, a 404, or half its document and then a dropped connection. */
type Fault = 'ok' | 503 | 404 | 'drop';

/** A sitemap tree a test edits between syncs: indexes list children (with a lastmod each), leaves list pages. */
interface Tree {
  indexes: Map<string, Array<{ path: string; lastmod: string }>>;
  leaves: Map<string, string[]>;
  faults: Map<string, Fault>;
}

const SITEMAP_HEADERS = { 'content-type': 'application/xml' };

function document(tree: Tree, origin: string, path: string): string | null {
  const children = tree.indexes.get(path);
  if (children) {
    // A path with a scheme of its own (`javascript:alert(1)`) is written as it is: junk some indexes list.
    const loc = (path: string) => (/^[a-z]+:/.test(path) ? path : `${origin}${path}`);
    const items = children.map((child) => `<sitemap><loc>${loc(child.path)}</loc><lastmod>${child.lastmod}</lastmod></sitemap>`);
    return `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${items.join('')}</sitemapindex>`;
  }
  const pages = tree.leaves.get(path);
  if (!pages) return null;
  const items = pages.map((loc) => `<url><loc>${loc}</loc><lastmod>2026-01-01</lastmod></url>`);
  return `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${items.join('')}</urlset>`;
}

// Half the document, then the socket is destroyed: the client sees a reset in the middle of the body.
function dropMidBody(response: ServerResponse, body: string): 'handled' {
  response.writeHead(200, SITEMAP_HEADERS);
  response.write(body.slice(0, Math.floor(body.length / 2)));
  setTimeout(() => response.destroy(), 20);
  return 'handled';
}

async function startTreeSite(tree: Tree): Promise<LoopbackServer> {
  const server = await startLoopbackServer((request, response): CannedResponse | null | 'handled' => {
    const path = request.url ?? '/';
    if (path === '/robots.txt') return { body: `Sitemap: ${server.origin}/sm/index.xml\n` };
    const body = document(tree, server.origin, path);
    if (body === null) return null;
    const fault = tree.faults.get(path) ?? 'ok';
    if (fault === 503 || fault === 404) return { status: fault, body: 'no' };
    if (fault === 'drop') return dropMidBody(response, body);
    return { headers: SITEMAP_HEADERS, body };
  });
  server.server.keepAliveTimeout = 120_000;
  return server;
}

const PER_CHILD = 200;
// Most tests are of which sitemap a failure leaves unread: a gone one's URLs go at its first 404 there.
const NO_GRACE: SiteOptions = { goneGrace: { syncs: 1, hours: 0 } };

/** robots.txt -> /sm/index.xml -> /sm/child-1..5.xml, 200 pages each (/cN/p-i), every child listed with lastmod 2026-01-01. */
function fiveChildTree(): Tree {
  const children = [1, 2, 3, 4, 5].map((n) => ({ path: `/sm/child-${n}.xml`, lastmod: '2026-01-01' }));
  return { indexes: new Map([['/sm/index.xml', children]]), leaves: new Map(), faults: new Map() };
}

// Pages carry the server's origin: filled in once it listens.
function fillPages(tree: Tree, origin: string): void {
  for (const n of [1, 2, 3, 4, 5])
    tree.leaves.set(
      `/sm/child-${n}.xml`,
      Array.from({ length: PER_CHILD }, (_, i) => `${origin}/c${n}/p-${i}`),
    );
}

/** Moves child N's lastmod in the index, so the next sync fetches it instead of skipping it as unchanged. */
function touch(tree: Tree, path: string, lastmod = '2026-02-01'): void {
  for (const children of tree.indexes.values()) for (const child of children) if (child.path === path) child.lastmod = lastmod;
}

describe.each(DATABASES)('no false removals on $name', ({ open }) => {
  const test = useTestDb(open);
  const store = new MemoryJobStore();
  const servers: LoopbackServer[] = [];

  beforeAll(async () => {}, PGLITE_START_MS);
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.close()));
  });

  const runtime = () => ({ db: test.db, store, net: LOOPBACK_NET });
  const sync = async (siteId: string) => syncToEnd(runtime(), (await startSync(runtime(), siteId)).syncId);
  const live = async (siteId: string) => (await urlFacts(test.db, siteId)).filter((row) => !row.removed).map((row) => String(row.url));
  const removedUrls = async (siteId: string) => (await urlFacts(test.db, siteId)).filter((row) => row.removed).map((row) => String(row.url));

  /** A five-child site, synced once: 1000 live URLs. */
  async function fiveChildSite(siteId: string, options: SiteOptions = NO_GRACE): Promise<{ tree: Tree; server: LoopbackServer }> {
    const tree = fiveChildTree();
    const server = await startTreeSite(tree);
    servers.push(server);
    fillPages(tree, server.origin);
    await createSite(test.db, { rootUrl: `${server.origin}/`, siteId, options });
    expect(await sync(siteId)).toMatchObject({ state: 'done', new: 5 * PER_CHILD, removed: 0 });
    return { tree, server };
  }

  it('removes the URLs of a child the index stopped listing, a junk child loc beside it reported but no failure', async () => {
    const { tree } = await fiveChildSite('junk');
    const index = tree.indexes.get('/sm/index.xml') ?? [];
    tree.indexes.set('/sm/index.xml', [...index.filter((child) => child.path !== '/sm/child-5.xml'), { path: 'javascript:alert(1)', lastmod: '2026-01-01' }]);
    const synced = await sync('junk');
    expect(synced).toMatchObject({ state: 'done', errors: { invalid_url: 1 }, removed: PER_CHILD, keptUnread: 0 });
    expect((await getSyncDetail(test.db, synced.syncId)).failedSitemaps).toEqual([]);
    expect(await live('junk')).toHaveLength(4 * PER_CHILD);
  });

  it('ends a sync its maxUrls stopped done, saying the limit as its message (not an error), and removes nothing', async () => {
    await fiveChildSite('capped');
    await updateSite(test.db, 'capped', { options: { maxUrls: 300 } }, LOOPBACK_NET);
    const capped = syncToEnd(runtime(), (await startSync(runtime(), 'capped', { full: true })).syncId);
    expect(await capped).toMatchObject({ state: 'done', errors: {}, removed: 0, message: 'maxUrls (300) reached: the run stopped there' });
    expect((await getSyncDetail(test.db, (await capped).syncId)).failedSitemaps).toEqual([]);
    expect(await live('capped')).toHaveLength(5 * PER_CHILD);
  });

  it('keeps the URLs of a child that answers 503 after its index lastmod moved, and the next healthy sync returns nothing', async () => {
    const { tree } = await fiveChildSite('c503');
    touch(tree, '/sm/child-2.xml');
    tree.faults.set('/sm/child-2.xml', 503);
    const failed = await sync('c503');
    expect(failed).toMatchObject({ state: 'done', errors: { http_status: 1 }, removed: 0, keptUnread: PER_CHILD, unchangedSitemaps: 4, kept: 4 * PER_CHILD });
    expect(await live('c503')).toHaveLength(5 * PER_CHILD);
    const detail = await getSyncDetail(test.db, failed.syncId, 'c503');
    expect(detail.failedSitemaps).toEqual([
      expect.objectContaining({ url: expect.stringMatching(/\/sm\/child-2\.xml$/), kind: 'http_status', status: 503, fate: 'unknown' }),
    ]);

    tree.faults.delete('/sm/child-2.xml');
    const healthy = await sync('c503');
    expect(healthy).toMatchObject({ state: 'done', removed: 0, returned: 0, keptUnread: 0 });
    expect(await historyFacts(test.db, 'c503')).toEqual([]);
  });

  it('keeps the URLs of a child whose connection drops in the middle of its body', async () => {
    const { tree } = await fiveChildSite('cdrop');
    touch(tree, '/sm/child-2.xml');
    tree.faults.set('/sm/child-2.xml', 'drop');
    const failed = await sync('cdrop');
    expect(failed).toMatchObject({ state: 'done', removed: 0 });
    expect(failed.errors).not.toEqual({});
    // What it gave before the drop was seen; the rest was kept unread.
    expect(failed.keptUnread).toBeGreaterThan(0);
    expect(failed.keptUnread).toBeLessThanOrEqual(PER_CHILD);
    expect(await live('cdrop')).toHaveLength(5 * PER_CHILD);

    tree.faults.delete('/sm/child-2.xml');
    expect(await sync('cdrop')).toMatchObject({ state: 'done', removed: 0, returned: 0 });
    expect(await historyFacts(test.db, 'cdrop')).toEqual([]);
  });

  it('removes the URLs of a child that answers 404 and of a child the index no longer lists, keeping a 503 child beside them', async () => {
    const { tree, server } = await fiveChildSite('cgone');
    touch(tree, '/sm/child-2.xml');
    tree.faults.set('/sm/child-2.xml', 503);
    touch(tree, '/sm/child-3.xml');
    tree.faults.set('/sm/child-3.xml', 404);
    tree.indexes.set(
      '/sm/index.xml',
      tree.indexes.get('/sm/index.xml')!.filter((child) => child.path !== '/sm/child-5.xml'),
    );
    const done = await sync('cgone');
    expect(done).toMatchObject({ state: 'done', removed: 2 * PER_CHILD, keptUnread: PER_CHILD });
    const removed = await removedUrls('cgone');
    expect(removed.sort()).toEqual([...tree.leaves.get('/sm/child-3.xml')!, ...tree.leaves.get('/sm/child-5.xml')!].sort());
    const detail = await getSyncDetail(test.db, done.syncId);
    expect(detail.failedSitemaps.map((failure) => [failure.url, failure.status, failure.fate]).sort()).toEqual([
      [`${server.origin}/sm/child-2.xml`, 503, 'unknown'],
      [`${server.origin}/sm/child-3.xml`, 404, 'gone'],
    ]);
  });

  it('keeps a child that answers 404 pending through its grace (two syncs, a day apart), then removes its URLs', async () => {
    const { tree } = await fiveChildSite('grace', {});
    touch(tree, '/sm/child-3.xml');
    tree.faults.set('/sm/child-3.xml', 404);
    // First 404, then a second the same day: pending, kept (unread), nothing removed.
    for (const full of [false, true]) {
      const pending = await syncToEnd(runtime(), (await startSync(runtime(), 'grace', { full })).syncId);
      expect(pending).toMatchObject({ state: 'done', removed: 0, keptUnread: PER_CHILD });
    }
    expect(await live('grace')).toHaveLength(5 * PER_CHILD);
    // The streak began a day ago: the next 404 removes them.
    await test.db.query("UPDATE sitemaps SET gone_since = now() - interval '25 hours' WHERE site_id = 'grace' AND url LIKE '%/sm/child-3.xml'");
    const gone = await syncToEnd(runtime(), (await startSync(runtime(), 'grace', { full: true })).syncId);
    expect(gone).toMatchObject({ state: 'done', removed: PER_CHILD, keptUnread: 0 });
    // Answering again ends the streak: a later 404 starts the grace afresh.
    tree.faults.delete('/sm/child-3.xml');
    expect(await syncToEnd(runtime(), (await startSync(runtime(), 'grace', { full: true })).syncId)).toMatchObject({ state: 'done', returned: PER_CHILD });
    const [streak] = await test.db.query(
      "SELECT gone_since AS since, gone_syncs AS syncs FROM sitemaps WHERE site_id = 'grace' AND url LIKE '%/sm/child-3.xml'",
    );
    expect(streak).toEqual({ since: null, syncs: 0 });
  });

  it('removes a URL listed by two sitemaps only once neither lists it', async () => {
    const { tree, server } = await fiveChildSite('ctwo');
    const shared = `${server.origin}/shared/page`;
    tree.leaves.get('/sm/child-1.xml')!.push(shared);
    tree.leaves.get('/sm/child-2.xml')!.push(shared);
    touch(tree, '/sm/child-1.xml', '2026-02-01');
    touch(tree, '/sm/child-2.xml', '2026-02-01');
    expect(await sync('ctwo')).toMatchObject({ state: 'done', new: 1, removed: 0 });
    // The inventory records the URL under one of the two: that one drops it while the other is unchanged.
    const [row] = await test.db.query('SELECT source_sitemap AS "source" FROM urls WHERE site_id = $1 AND url = $2', ['ctwo', shared]);
    const recorded = new URL(String(row!.source)).pathname;
    const other = recorded === '/sm/child-1.xml' ? '/sm/child-2.xml' : '/sm/child-1.xml';
    tree.leaves.set(
      recorded,
      tree.leaves.get(recorded)!.filter((url) => url !== shared),
    );
    touch(tree, recorded, '2026-03-01');
    expect(await sync('ctwo')).toMatchObject({ state: 'done', removed: 0, unchangedSitemaps: 4 });
    expect(await live('ctwo')).toContain(shared);

    tree.leaves.set(
      other,
      tree.leaves.get(other)!.filter((url) => url !== shared),
    );
    touch(tree, other, '2026-03-01');
    expect(await sync('ctwo')).toMatchObject({ state: 'done', removed: 1 });
    expect(await removedUrls('ctwo')).toEqual([shared]);
  });

  it("keeps the URLs of a failed index's children", async () => {
    const tree: Tree = { indexes: new Map(), leaves: new Map(), faults: new Map() };
    const server = await startTreeSite(tree);
    servers.push(server);
    tree.indexes.set('/sm/index.xml', [
      { path: '/sm/sub-a.xml', lastmod: '2026-01-01' },
      { path: '/sm/sub-b.xml', lastmod: '2026-01-01' },
    ]);
    tree.indexes.set(
      '/sm/sub-a.xml',
      [1, 2].map((n) => ({ path: `/sm/child-${n}.xml`, lastmod: '2026-01-01' })),
    );
    tree.indexes.set(
      '/sm/sub-b.xml',
      [3, 4].map((n) => ({ path: `/sm/child-${n}.xml`, lastmod: '2026-01-01' })),
    );
    for (const n of [1, 2, 3, 4])
      tree.leaves.set(
        `/sm/child-${n}.xml`,
        Array.from({ length: PER_CHILD }, (_, i) => `${server.origin}/c${n}/p-${i}`),
      );
    await createSite(test.db, { rootUrl: `${server.origin}/`, siteId: 'cindex' });
    expect(await sync('cindex')).toMatchObject({ state: 'done', new: 4 * PER_CHILD });

    // sub-b fails: children 3 and 4 are not even asked for. Child 1 changes for real and is read whole.
    tree.faults.set('/sm/sub-b.xml', 503);
    tree.leaves.set('/sm/child-1.xml', tree.leaves.get('/sm/child-1.xml')!.slice(1));
    touch(tree, '/sm/child-1.xml');
    const done = await sync('cindex');
    expect(done).toMatchObject({ state: 'done', removed: 1, keptUnread: 2 * PER_CHILD, unchangedSitemaps: 1 });
    expect(await live('cindex')).toHaveLength(4 * PER_CHILD - 1);

    tree.faults.delete('/sm/sub-b.xml');
    expect(await sync('cindex')).toMatchObject({ state: 'done', removed: 0, returned: 0 });
    expect((await historyFacts(test.db, 'cindex')).map((row) => row.event)).toEqual(['removed']);
  });
});
