import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoopbackServer, type CannedResponse, type LoopbackServer } from '../../demo/loopback-server.js';
import { MemoryJobStore } from '../../store/memory-job-store.js';
import { readSiteValidators } from '../site-validators.js';
import { createSite } from '../sites.js';
import { startSync } from '../sync-driver.js';
import { DATABASES, LOOPBACK_NET, PGLITE_START_MS, syncToEnd, urlFacts, useTestDb } from './inventory-fixtures.js';

/** One urlset of the site: its pages, the lastmod the index lists it with, and a 304 it gives whatever changed (a lie). */
interface Leaf {
  pages: string[];
  lastmod: string | null;
  etag: string;
  lies?: boolean;
}

/** robots.txt -> index (with lastmods) -> three urlsets that answer If-None-Match. */
async function startSite(): Promise<LoopbackServer & { leaves: Map<string, Leaf> }> {
  const leaves = new Map<string, Leaf>();
  const server = await startLoopbackServer((request): CannedResponse | null => {
    const path = request.url ?? '/';
    if (path === '/robots.txt') return { body: `Sitemap: ${server.origin}/index.xml\n` };
    if (path === '/index.xml') {
      const items = [...leaves].map(
        ([name, leaf]) => `<sitemap><loc>${server.origin}/${name}.xml</loc>${leaf.lastmod ? `<lastmod>${leaf.lastmod}</lastmod>` : ''}</sitemap>`,
      );
      return {
        headers: { 'content-type': 'application/xml' },
        body: `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${items.join('')}</sitemapindex>`,
      };
    }
    const leaf = leaves.get(path.slice(1).replace(/\.xml$/, ''));
    if (!leaf) return null;
    const asked = request.headers['if-none-match'];
    if (asked !== undefined && (asked === leaf.etag || leaf.lies)) return { status: 304, headers: { etag: leaf.etag } };
    const body = leaf.pages.map((loc) => `<url><loc>${loc}</loc></url>`).join('');
    return {
      headers: { 'content-type': 'application/xml', etag: leaf.etag },
      body: `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${body}</urlset>`,
    };
  });
  server.server.keepAliveTimeout = 120_000;
  const pages = (name: string, n: number) => Array.from({ length: n }, (_, i) => `${server.origin}/${name}/${i}`);
  leaves.set('a', { pages: pages('a', 20), lastmod: '2026-01-01', etag: '"a1"' });
  leaves.set('b', { pages: pages('b', 20), lastmod: '2026-01-01', etag: '"b1"' });
  leaves.set('c', { pages: pages('c', 20), lastmod: null, etag: '"c1"' });
  return Object.assign(server, { leaves });
}

describe.each(DATABASES)('incremental re-sync of the inventory on $name', ({ open }) => {
  let site: Awaited<ReturnType<typeof startSite>>;
  const test = useTestDb(open);
  const store = new MemoryJobStore();

  beforeAll(async () => {
    site = await startSite();
  }, PGLITE_START_MS);
  afterAll(async () => {
    await site?.close();
  });

  const live = async () =>
    (await urlFacts(test.db, 'resync'))
      .filter((row) => !row.removed)
      .map((row) => String(row.url))
      .sort();

  it('keeps the URLs of unchanged sitemaps (never removed), applies the changed one, and --full reads everything', async () => {
    const runtime = { db: test.db, store, net: LOOPBACK_NET };
    await createSite(test.db, { rootUrl: `${site.origin}/`, siteId: 'resync' });
    const first = await syncToEnd(runtime, (await startSync(runtime, 'resync')).syncId);
    expect(first).toMatchObject({ state: 'done', new: 60, unchangedSitemaps: 0, kept: 0 });
    expect(Object.keys(await readSiteValidators(test.db, 'resync'))).toHaveLength(3);

    // b changes for real (lastmod moves); c changes but answers 304 (a lie): what it hides is all that is missed.
    const b = site.leaves.get('b')!;
    const c = site.leaves.get('c')!;
    const oldB = b.pages;
    site.leaves.set('b', { ...b, pages: [...oldB.slice(2), `${site.origin}/b/new`], lastmod: '2026-02-01', etag: '"b2"' });
    site.leaves.set('c', { ...c, pages: c.pages.slice(5), etag: '"c2"', lies: true });
    const second = await syncToEnd(runtime, (await startSync(runtime, 'resync')).syncId);
    expect(second).toMatchObject({ state: 'done', new: 1, removed: 2, unchangedSitemaps: 2, kept: 40 });
    expect(site.hits('/a.xml')).toBe(1);
    const expected = [...site.leaves.get('a')!.pages, ...site.leaves.get('b')!.pages, ...c.pages].sort();
    expect(await live()).toEqual(expected);

    // --full: every sitemap read whole, so c's real content lands too.
    const full = await syncToEnd(runtime, (await startSync(runtime, 'resync', { full: true })).syncId);
    expect(full).toMatchObject({ state: 'done', unchangedSitemaps: 0, removed: 5 });
    expect(site.hits('/a.xml')).toBe(2);
    expect(await live()).toEqual([...site.leaves.get('a')!.pages, ...site.leaves.get('b')!.pages, ...c.pages.slice(5)].sort());
  });
});
