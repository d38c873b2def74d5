import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDemoPlan, type DemoLeaf } from '../demo-plan.js';
import { demoSiteExpectation, startDemoSite, type DemoSite } from '../demo-site.js';
import { decodeBody, independentWalk, isGzip, rawGet } from './independent-walk.js';

describe('demo site at a small scale', () => {
  let site: DemoSite;
  beforeAll(async () => {
    site = await startDemoSite({ scale: 0.02 });
  });
  afterAll(() => site.close());

  it('lists three Sitemap lines in robots.txt (BOM, CRLF, relative, case duplicate) that dedupe to the expectation', async () => {
    const { body } = await rawGet(site.url('/robots.txt'));
    const text = body.toString('utf8');
    expect(text.startsWith('\uFEFF')).toBe(true);
    expect(text).toContain('\r\n');
    const lines = text.split('\r\n').filter((line) => /^sitemap:/i.test(line));
    expect(lines).toHaveLength(3);
    const resolved = lines.map((line) => new URL(line.slice('sitemap:'.length).trim(), site.url('/robots.txt')).href);
    expect([...new Set(resolved)]).toEqual(site.expectation.robotsSitemaps);
  });

  it('serves from the root index exactly the pages, sitemaps, failure and cycles the expectation counts', async () => {
    const walk = await independentWalk([site.rootIndexUrl]);
    const expected = site.expectation.index;
    expect(walk.pages.size).toBe(expected.pageUrls);
    expect(walk.entries).toBe(expected.entries);
    expect(walk.sitemaps.sort()).toEqual([...expected.sitemapUrls].sort());
    expect(walk.failures).toEqual(expected.failures.map((failure) => failure.url));
    expect(walk.cycleRefs.sort()).toEqual([...expected.cycleRefs].sort());
  });

  it('adds the robots-only sitemap when every discovered sitemap is walked', async () => {
    const walk = await independentWalk(site.expectation.robotsSitemaps);
    expect(walk.pages.size).toBe(site.expectation.all.pageUrls);
    expect(walk.sitemaps).toHaveLength(site.expectation.all.sitemaps);
  });

  it('sends every child with the wire encoding its plan names, gzip decoding to XML', async () => {
    const leaves = [...buildDemoPlan(0.02).nodes.values()].filter((node): node is DemoLeaf => node.kind !== 'index' && node.kind !== 'missing');
    for (const leaf of leaves) {
      const { headers, body } = await rawGet(site.url(leaf.path));
      expect(isGzip(body), leaf.path).toBe(leaf.encoding !== 'plain');
      expect(headers['content-encoding'] === 'gzip', leaf.path).toBe(leaf.encoding === 'content-encoding');
      expect(leaf.path.endsWith('.gz'), leaf.path).toBe(leaf.encoding === 'gzip-file');
      expect(decodeBody(body).length).toBeGreaterThan(0);
    }
  });

  it('streams generated bodies instead of buffering them whole', async () => {
    const { headers } = await rawGet(site.url('/sitemaps/products/shoes/part-4.xml'));
    expect(headers['transfer-encoding']).toBe('chunked');
    expect(headers['content-length']).toBeUndefined();
  });

  it('serves the cycle variants for real, so a walker that follows them would loop', async () => {
    const plain = await rawGet(site.url('/sitemaps/products/index.xml'));
    const slashed = await rawGet(site.url('/sitemaps/products/index.xml/'));
    expect(slashed.body.equals(plain.body)).toBe(true);
    expect(site.expectation.index.cycleRefs).toContain(site.url('/sitemaps/products/index.xml/'));
  });

  it('answers the failing child with 404 and an XML body', async () => {
    const [failure] = site.expectation.index.failures;
    const response = await rawGet(failure?.url ?? '');
    expect(response.status).toBe(404);
    expect(response.body.toString()).toMatch(/^<\?xml/);
  });

  it('answers HEAD with headers only', async () => {
    const response = await rawGet(site.rootIndexUrl, 'HEAD');
    expect(response.status).toBe(200);
    expect(response.body).toHaveLength(0);
  });

  it('carries hreflang, image, video and news extensions under standard and unusual prefixes', async () => {
    const text = (path: string) => rawGet(site.url(path)).then((response) => decodeBody(response.body));
    expect(await text('/sitemaps/products/bags/part-4.xml')).toMatch(/<xl:link rel="alternate" hreflang="de-de"[\s\S]*<pic:image><pic:loc>/);
    expect(await text('/sitemaps/media/clips.xml')).toContain('<v:video><v:thumbnail_loc>');
    expect(await text('/sitemaps/news/archive.xml')).toContain('<n:news><n:publication><n:name>');
    expect(await text('/sitemaps/products/shoes/part-1.xml.gz')).toContain('<image:image><image:loc>');
  });
});

describe('demo site expectation', () => {
  it('is about 100,000 page URLs at scale 1, at depth 3, with one failure and two cycles', () => {
    const { index, all } = demoSiteExpectation();
    expect(index.pageUrls).toBe(100_000);
    expect(all.pageUrls).toBe(100_010);
    expect(index.maxDepth).toBe(3);
    expect(index.failures).toHaveLength(1);
    expect(index.cycleRefs).toHaveLength(2);
  });

  it('is produced byte for byte by the full-size site', async () => {
    const site = await startDemoSite();
    try {
      const walk = await independentWalk(site.expectation.robotsSitemaps);
      expect(walk.pages.size).toBe(site.expectation.all.pageUrls);
      expect(walk.entries).toBe(site.expectation.all.entries);
    } finally {
      await site.close();
    }
  });

  it('rejects scales that would break the 50,000-URL file limit or mean nothing', () => {
    expect(() => demoSiteExpectation({ scale: 0 })).toThrow(RangeError);
    expect(() => demoSiteExpectation({ scale: 21 })).toThrow(RangeError);
  });

  it('is deterministic: two sites of one scale serve the same bytes but for their origin', async () => {
    const [a, b] = await Promise.all([startDemoSite({ scale: 0.01 }), startDemoSite({ scale: 0.01 })]);
    try {
      const path = '/sitemaps/blog/posts-2024.xml';
      const [ta, tb] = await Promise.all([a, b].map((s) => rawGet(s.url(path)).then((r) => decodeBody(r.body).replaceAll(s.origin, 'ORIGIN'))));
      expect(ta).toBe(tb);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
