import type { IncomingMessage } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startLoopbackServer, type CannedResponse, type LoopbackServer } from '../../../demo/loopback-server.js';
import { walkUrlEvents, type WalkEvent } from '../../sitemap.js';
import type { Validators } from '../../../core/types.js';
import { ValidatorLog } from '../validator-log.js';
import { pageUrls, urlsetXml, XML } from '../../../../test/helpers/sitemap-xml.js';

const open = { net: { allowPrivate: true } };

/** One leaf of the test site: its pages, the ETag it answers with, and the lastmod the index lists it with. */
interface Leaf {
  pages: string[];
  etag: string | null;
  lastModified: string | null;
  listedLastmod: string | null;
  /** Answers 304 whenever asked conditionally, changed or not (a lying server). */
  lies?: boolean;
}

/** A site whose index and leaves can be changed between runs; it honours If-None-Match and If-Modified-Since. */
class ChangingSite {
  readonly leaves = new Map<string, Leaf>();
  readonly conditional: string[] = [];
  server!: LoopbackServer;
  /** Extra routes (a nested index). */
  readonly extra = new Map<string, (origin: string) => CannedResponse>();

  async start(): Promise<this> {
    this.server = await startLoopbackServer((request) => this.answer(request));
    return this;
  }

  leaf(name: string, leaf: Leaf): void {
    this.leaves.set(name, leaf);
  }

  indexXml(): string {
    const items = [...this.leaves].map(([name, leaf]) => {
      const lastmod = leaf.listedLastmod === null ? '' : `<lastmod>${leaf.listedLastmod}</lastmod>`;
      return `<sitemap><loc>${this.server.url(`/${name}.xml`)}</loc>${lastmod}</sitemap>`;
    });
    return `<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${items.join('')}</sitemapindex>`;
  }

  private answer(request: IncomingMessage): CannedResponse | null {
    const path = request.url ?? '/';
    if (path === '/index.xml') return { headers: XML, body: this.indexXml() };
    const extra = this.extra.get(path);
    if (extra) return extra(this.server.origin);
    const leaf = this.leaves.get(path.slice(1).replace(/\.xml$/, ''));
    if (!leaf) return null;
    const ifNoneMatch = request.headers['if-none-match'];
    const ifModifiedSince = request.headers['if-modified-since'];
    if (ifNoneMatch !== undefined || ifModifiedSince !== undefined) this.conditional.push(path);
    const validators = { ...(leaf.etag ? { etag: leaf.etag } : {}), ...(leaf.lastModified ? { 'last-modified': leaf.lastModified } : {}) };
    const fresh =
      (ifNoneMatch !== undefined && ifNoneMatch === leaf.etag) ||
      (ifNoneMatch === undefined && ifModifiedSince !== undefined && ifModifiedSince === leaf.lastModified);
    if (fresh || (leaf.lies && (ifNoneMatch !== undefined || ifModifiedSince !== undefined))) return { status: 304, headers: validators };
    return { headers: { ...XML, ...validators }, body: urlsetXml(leaf.pages) };
  }
}

let site: ChangingSite | null = null;
afterEach(async () => site?.server.close());

type Sitemaps = Array<Extract<WalkEvent<string>, { type: 'sitemap' }>>;

/** Walks the site's index; returns URLs, sitemap events and the validators to give the next run. */
async function walk(url: string, previous?: Validators) {
  const urls: string[] = [];
  const sitemaps: Sitemaps = [];
  const errors: string[] = [];
  const log = new ValidatorLog();
  for await (const event of walkUrlEvents(url, { ...open, ...(previous ? { previous } : {}) })) {
    if (event.type === 'batch') urls.push(...event.items);
    if (event.type === 'error') errors.push(event.kind);
    if (event.type === 'sitemap') {
      sitemaps.push(event);
      log.record(event);
    }
  }
  return { urls: urls.sort(), sitemaps, errors, validators: log.toJSON() };
}

const unchangedOf = (sitemaps: Sitemaps) =>
  sitemaps
    .filter((s) => s.unchanged)
    .map((s) => new URL(s.url).pathname)
    .sort();

async function threeLeafSite(): Promise<ChangingSite> {
  site = await new ChangingSite().start();
  const origin = site.server.origin;
  site.leaf('a', { pages: pageUrls(origin, 3, 'a'), etag: '"a1"', lastModified: null, listedLastmod: '2026-01-01' });
  site.leaf('b', { pages: pageUrls(origin, 3, 'b'), etag: '"b1"', lastModified: null, listedLastmod: '2026-01-01' });
  site.leaf('c', { pages: pageUrls(origin, 3, 'c'), etag: null, lastModified: 'Thu, 01 Jan 2026 00:00:00 GMT', listedLastmod: null });
  return site;
}

describe('incremental re-sync of a walk', () => {
  it('keeps a validator for every leaf and none for the index, which is always read whole', async () => {
    const s = await threeLeafSite();
    const first = await walk(s.server.url('/index.xml'));
    expect(first.urls).toHaveLength(9);
    expect(first.sitemaps.every((sitemap) => !sitemap.unchanged)).toBe(true);
    expect(Object.values(first.validators).sort((x, y) => String(x.etag).localeCompare(String(y.etag)))).toEqual([
      { etag: '"a1"', lastModified: null, lastmod: '2026-01-01' },
      { etag: '"b1"', lastModified: null, lastmod: '2026-01-01' },
      { etag: null, lastModified: 'Thu, 01 Jan 2026 00:00:00 GMT', lastmod: null },
    ]);
    expect(first.sitemaps.find((sitemap) => sitemap.url.endsWith('/index.xml'))?.validator).toBeNull();
  });

  it('skips children whose index lastmod did not move and asks for the others conditionally, a 304 being unchanged', async () => {
    const s = await threeLeafSite();
    const first = await walk(s.server.url('/index.xml'));
    const second = await walk(s.server.url('/index.xml'), first.validators);
    expect(s.server.hits('/a.xml')).toBe(1);
    expect(s.server.hits('/b.xml')).toBe(1);
    expect(s.server.hits('/c.xml')).toBe(2);
    expect(s.server.hits('/index.xml')).toBe(2);
    expect(s.conditional).toEqual(['/c.xml']);
    expect(unchangedOf(second.sitemaps)).toEqual(['/a.xml', '/b.xml', '/c.xml']);
    expect(second.urls).toEqual([]);
    expect(second.errors).toEqual([]);
    // What the next run needs survives a run that read nothing.
    expect(second.validators).toEqual(first.validators);
  });

  it('reads a child whose lastmod moved and content changed, and one whose ETag no longer matches', async () => {
    const s = await threeLeafSite();
    const origin = s.server.origin;
    const first = await walk(s.server.url('/index.xml'));
    s.leaf('a', { pages: pageUrls(origin, 4, 'a'), etag: '"a2"', lastModified: null, listedLastmod: '2026-02-01' });
    s.leaf('c', { pages: pageUrls(origin, 2, 'c'), etag: null, lastModified: 'Sun, 01 Feb 2026 00:00:00 GMT', listedLastmod: null });
    const second = await walk(s.server.url('/index.xml'), first.validators);
    expect(second.urls).toEqual([...pageUrls(origin, 4, 'a'), ...pageUrls(origin, 2, 'c')].sort());
    expect(unchangedOf(second.sitemaps)).toEqual(['/b.xml']);
    expect(s.conditional.sort()).toEqual(['/a.xml', '/c.xml']);
    expect(
      Object.values(second.validators)
        .map((v) => v.etag ?? v.lastModified)
        .sort(),
    ).toEqual(['"a2"', '"b1"', 'Sun, 01 Feb 2026 00:00:00 GMT']);
  });

  it('treats a 304 to a moved lastmod as unchanged and remembers the new lastmod', async () => {
    const s = await threeLeafSite();
    const first = await walk(s.server.url('/index.xml'));
    const a = s.leaves.get('a');
    if (a) a.listedLastmod = '2026-03-01';
    const second = await walk(s.server.url('/index.xml'), first.validators);
    expect(unchangedOf(second.sitemaps)).toEqual(['/a.xml', '/b.xml', '/c.xml']);
    expect(s.conditional).toEqual(['/a.xml', '/c.xml']);
    expect(Object.values(second.validators).find((v) => v.etag === '"a1"')?.lastmod).toBe('2026-03-01');
    await walk(s.server.url('/index.xml'), second.validators);
    expect(s.server.hits('/a.xml')).toBe(2);
  });

  it('a lying server hides only what it lies about, and a full run (no previous validators) reads everything', async () => {
    const s = await threeLeafSite();
    const origin = s.server.origin;
    const first = await walk(s.server.url('/index.xml'));
    // a: changed but the index lastmod did not move; c: changed but answered 304.
    s.leaf('a', { pages: pageUrls(origin, 5, 'a'), etag: '"a2"', lastModified: null, listedLastmod: '2026-01-01' });
    s.leaf('c', { pages: pageUrls(origin, 5, 'c'), etag: null, lastModified: 'Sun, 01 Feb 2026 00:00:00 GMT', listedLastmod: null, lies: true });
    const lied = await walk(s.server.url('/index.xml'), first.validators);
    // Nothing is said to be gone: each sitemap is either read or reported unchanged (its URLs stay the previous run's).
    expect(unchangedOf(lied.sitemaps)).toEqual(['/a.xml', '/b.xml', '/c.xml']);
    expect(lied.urls).toEqual([]);
    const full = await walk(s.server.url('/index.xml'));
    expect(full.sitemaps.some((sitemap) => sitemap.unchanged)).toBe(false);
    expect(full.urls).toEqual([...pageUrls(origin, 5, 'a'), ...pageUrls(origin, 3, 'b'), ...pageUrls(origin, 5, 'c')].sort());
  });

  it('always reads a nested index whole, even listed with an unmoved lastmod, so its children are still followed', async () => {
    site = await new ChangingSite().start();
    const s = site;
    const origin = s.server.origin;
    s.leaf('leaf', { pages: pageUrls(origin, 2, 'l'), etag: '"l1"', lastModified: null, listedLastmod: '2026-01-01' });
    s.extra.set('/root.xml', () => ({
      headers: XML,
      body: `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>${origin}/index.xml</loc><lastmod>2026-01-01</lastmod></sitemap></sitemapindex>`,
    }));
    const first = await walk(s.server.url('/root.xml'));
    s.leaf('new', { pages: pageUrls(origin, 2, 'n'), etag: null, lastModified: null, listedLastmod: '2026-02-01' });
    const second = await walk(s.server.url('/root.xml'), first.validators);
    expect(s.server.hits('/index.xml')).toBe(2);
    expect(second.urls).toEqual(pageUrls(origin, 2, 'n'));
    expect(unchangedOf(second.sitemaps)).toEqual(['/leaf.xml']);
  });

  it('a 304 to an unconditional request is still an http_status error', async () => {
    site = await new ChangingSite().start();
    site.extra.set('/odd.xml', () => ({ status: 304 }));
    const events: string[] = [];
    await expect(async () => {
      for await (const event of walkUrlEvents(site?.server.url('/odd.xml') ?? '', open)) events.push(event.type);
    }).rejects.toMatchObject({ kind: 'http_status' });
  });
});
