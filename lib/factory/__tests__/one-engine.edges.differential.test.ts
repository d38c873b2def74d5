import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { CannedResponse } from '../../demo/loopback-server.js';
import { MemoryJobStore } from '../../store/memory-job-store.js';
import { createJob, runSlice } from '../jobs/index.js';
import { walkUrlEvents } from '../sitemap.js';
import { indexOf, urlsetOf } from '../jobs/__tests__/small-sites.js';
import { robots, useOneEngine } from './one-engine-harness.js';

const { expectOneEngine, site } = useOneEngine();

/** The text of a urlset of `count` pages cut right after its `kept`-th entry (so exactly `kept` entries can be read). */
function cutUrlset(origin: string, prefix: string, count: number, kept: number): string {
  const text = urlsetOf(origin, prefix, count);
  const end = text.indexOf(`<url><loc>${origin}/${prefix}/${kept}</loc>`);
  return text.slice(0, end);
}

/** A urlset of `count` pages whose connection drops after its first `kept` entries. */
const droppedAfter = (origin: string, prefix: string, count: number, kept: number): CannedResponse => ({
  chunks: [cutUrlset(origin, prefix, count, kept)],
  cut: true,
});

/** A gzip urlset of `count` pages whose compressed stream stops half-way (a truncated .xml.gz). */
function truncatedGzip(origin: string, prefix: string, count: number): CannedResponse {
  const gzipped = gzipSync(urlsetOf(origin, prefix, count));
  return { body: gzipped.subarray(0, Math.floor(gzipped.length / 2)), headers: { 'content-type': 'application/gzip' } };
}

/** An index that lists `paths` and then drops its connection before it closes. */
function indexDroppedAfter(origin: string, paths: string[]): CannedResponse {
  const text = indexOf(origin, paths);
  return { chunks: [text.slice(0, text.indexOf('</sitemapindex>'))], cut: true };
}

const NO_RETRIES = { retries: 0 };

describe('one engine at the edges: walk and jobs (memory, redis, a killed slice) answer alike, and nothing read is dropped', () => {
  it('keeps every URL a root read before its connection dropped (1,429), and reports the cut', async () => {
    const server = await site((origin) => ({ '/root.xml': droppedAfter(origin, 'p', 3_000, 1_429) }));
    const outcome = await expectOneEngine({ sitemapUrls: [server.url('/root.xml')] });
    expect(outcome).toMatchObject({ failed: false, kinds: ['fetch_failed'] });
    expect(outcome.urls).toHaveLength(1_429);
  });

  it('keeps what a truncated gzip root decoded, and reports it', async () => {
    const server = await site((origin) => ({ '/root.xml.gz': truncatedGzip(origin, 'g', 4_000) }));
    const outcome = await expectOneEngine({ sitemapUrls: [server.url('/root.xml.gz')] }, NO_RETRIES);
    expect(outcome.failed).toBe(false);
    expect(outcome.kinds).toHaveLength(1);
    expect(outcome.urls.length).toBeGreaterThan(0);
    expect(outcome.urls.length).toBeLessThan(4_000);
  });

  it('ends done on an empty but valid root beside a dead one, reporting the dead one', async () => {
    const server = await site((origin) => ({ '/empty.xml': { body: urlsetOf(origin, 'e', 0) } }));
    const outcome = await expectOneEngine({ sitemapUrls: [server.url('/missing.xml'), server.url('/empty.xml')] });
    expect(outcome).toEqual({ urls: [], sources: [], kinds: ['http_status'], limit: null, failed: false, repeats: 0 });
  });

  it('fails when every root fails having yielded nothing', async () => {
    const server = await site(() => ({ '/early.xml': { chunks: [''], cut: true } }));
    const outcome = await expectOneEngine({ sitemapUrls: [server.url('/missing.xml'), server.url('/early.xml')] }, NO_RETRIES);
    expect(outcome).toMatchObject({ failed: true, urls: [] });
  });

  it('keeps a cut root and a dead root apart: the cut one yielded, so the run is done', async () => {
    const server = await site((origin) => ({ '/cut.xml': droppedAfter(origin, 'c', 500, 120) }));
    const outcome = await expectOneEngine({ sitemapUrls: [server.url('/missing.xml'), server.url('/cut.xml')] }, NO_RETRIES);
    expect(outcome).toMatchObject({ failed: false, kinds: ['fetch_failed', 'http_status'] });
    expect(outcome.urls).toHaveLength(120);
  });

  it('keeps what a child read before it was cut, beside its healthy siblings', async () => {
    const server = await site((origin) => ({
      '/index.xml': { body: indexOf(origin, ['/ok.xml', '/cut.xml', '/gz.xml.gz']) },
      '/ok.xml': { body: urlsetOf(origin, 'ok', 40) },
      '/cut.xml': droppedAfter(origin, 'cut', 2_000, 1_700),
      '/gz.xml.gz': truncatedGzip(origin, 'gz', 3_000),
    }));
    const outcome = await expectOneEngine({ sitemapUrls: [server.url('/index.xml')] }, NO_RETRIES);
    expect(outcome.failed).toBe(false);
    expect(outcome.kinds).toHaveLength(2);
    expect(outcome.urls.filter((url) => url.includes('/cut/'))).toHaveLength(1_700);
    expect(outcome.urls.filter((url) => url.includes('/ok/'))).toHaveLength(40);
  });

  it('follows the children a root index listed before it was cut, and reports the cut', async () => {
    const server = await site((origin) => ({
      '/index.xml': indexDroppedAfter(origin, ['/a.xml', '/gone.xml', '/b.xml']),
      '/a.xml': { body: urlsetOf(origin, 'a', 10) },
      '/b.xml': { body: urlsetOf(origin, 'b', 20) },
    }));
    const outcome = await expectOneEngine({ sitemapUrls: [server.url('/index.xml')] }, NO_RETRIES);
    expect(outcome).toMatchObject({ failed: false, kinds: ['fetch_failed', 'http_status'] });
    expect(outcome.urls).toHaveLength(30);
  });

  it('reports reaching maxUrls the same way everywhere, keeping exactly that many', async () => {
    const server = await site((origin) => ({
      '/index.xml': { body: indexOf(origin, ['/a.xml', '/b.xml']) },
      '/a.xml': { body: urlsetOf(origin, 'a', 1_000) },
      '/b.xml': { body: urlsetOf(origin, 'b', 1_000) },
    }));
    const outcome = await expectOneEngine({ sitemapUrls: [server.url('/index.xml')] }, { maxUrls: 1_500, concurrency: 1 });
    // The caller's limit, said as one: not an error of the site.
    expect(outcome).toMatchObject({ failed: false, kinds: [], limit: 'maxUrls (1500) reached: the run stopped there' });
    expect(outcome.urls).toHaveLength(1_500);
  });

  it('reports the per-sitemap cap and keeps the first maxUrlsPerSitemap of a root', async () => {
    const server = await site((origin) => ({ '/big.xml': { body: urlsetOf(origin, 'big', 1_200) } }));
    const outcome = await expectOneEngine({ sitemapUrls: [server.url('/big.xml')] }, { maxUrlsPerSitemap: 1_050 });
    expect(outcome).toMatchObject({ failed: false, kinds: ['too_many_urls'] });
    expect(outcome.urls).toHaveLength(1_050);
  });

  it('does not fall back when a robots.txt sitemap yielded before it was cut', async () => {
    const server = await site((origin) => ({
      '/robots.txt': robots(origin, ['/dead.xml', '/cut.xml']),
      '/cut.xml': droppedAfter(origin, 'c', 300, 200),
      '/sitemap.xml': { body: urlsetOf(origin, 'fallback', 7) },
    }));
    const outcome = await expectOneEngine({ rootUrl: `${server.origin}/` }, NO_RETRIES);
    expect(outcome).toMatchObject({ failed: false, kinds: ['fetch_failed', 'http_status'] });
    expect(outcome.urls).toHaveLength(200);
  });

  it('does not fall back when a robots.txt sitemap is empty but valid beside a dead one', async () => {
    const server = await site((origin) => ({
      '/robots.txt': robots(origin, ['/dead.xml', '/empty.xml']),
      '/empty.xml': { body: urlsetOf(origin, 'e', 0) },
      '/sitemap.xml': { body: urlsetOf(origin, 'fallback', 7) },
    }));
    expect(await expectOneEngine({ rootUrl: `${server.origin}/` })).toEqual({
      urls: [],
      sources: [],
      kinds: ['http_status'],
      limit: null,
      failed: false,
      repeats: 0,
    });
  });

  it('falls back when every robots.txt sitemap failed having yielded nothing, one of them cut before its first entry', async () => {
    const server = await site((origin) => ({
      '/robots.txt': robots(origin, ['/dead.xml', '/early.xml']),
      '/early.xml': { chunks: ['<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'], cut: true },
      '/sitemap.xml': { body: urlsetOf(origin, 'fallback', 7) },
    }));
    const outcome = await expectOneEngine({ rootUrl: `${server.origin}/` }, NO_RETRIES);
    expect(outcome).toMatchObject({ failed: false, kinds: ['fetch_failed', 'http_status'] });
    expect(outcome.urls).toHaveLength(7);
  });

  it('does not fetch a redirect target already read a second time (walk and job), and reports the cycle', async () => {
    const routes = (origin: string): Record<string, CannedResponse> => ({
      '/index.xml': { body: indexOf(origin, ['/a.xml', '/r.xml']) },
      '/r.xml': { status: 301, headers: { location: `${origin}/a.xml` }, body: '' },
      '/a.xml': { body: urlsetOf(origin, 'a', 5) },
    });
    const outcome = await expectOneEngine({ sitemapUrls: [(await site(routes)).url('/index.xml')] }, { concurrency: 1 });
    expect(outcome).toMatchObject({ failed: false, repeats: 1 });
    const walked = await site(routes);
    const events = [];
    for await (const event of walkUrlEvents(walked.url('/index.xml'), { net: { allowPrivate: true }, concurrency: 1 })) events.push(event.type);
    expect(events).toContain('cycle');
    expect(walked.hits('/a.xml')).toBe(1);
    const jobbed = await site(routes);
    const store = new MemoryJobStore();
    const { jobId } = await createJob(store, { sitemapUrls: [jobbed.url('/index.xml')], options: { net: { allowPrivate: true }, concurrency: 1 } });
    expect(await runSlice(store, jobId, { net: { allowPrivate: true }, budgetMs: 10_000 })).toMatchObject({ state: 'done', urlsFound: 5, cycleCount: 1 });
    expect(jobbed.hits('/a.xml')).toBe(1);
  });

  it('reports child locs refused before any fetch (file:, ftp:, javascript:) as an error, not only as a count', async () => {
    const refused = ['file:///etc/passwd', 'ftp://files.example/a.xml', 'javascript:alert(1)'];
    const server = await site((origin) => ({
      '/index.xml': {
        body: `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${[...refused, `${origin}/a.xml`]
          .map((loc) => `<sitemap><loc>${loc}</loc></sitemap>`)
          .join('')}</sitemapindex>`,
      },
      '/a.xml': { body: urlsetOf(origin, 'a', 3) },
    }));
    const outcome = await expectOneEngine({ sitemapUrls: [server.url('/index.xml')] });
    expect(outcome).toMatchObject({ failed: false, kinds: ['invalid_url'] });
    expect(outcome.urls).toHaveLength(3);
    const errors = [];
    for await (const event of walkUrlEvents(server.url('/index.xml'), { net: { allowPrivate: true } })) if (event.type === 'error') errors.push(event);
    expect(errors).toEqual([
      expect.objectContaining({ kind: 'invalid_url', url: server.url('/index.xml'), message: expect.stringMatching(/^3 child sitemap/) }),
    ]);
    for (const loc of refused) expect(errors[0]?.message).not.toContain(loc);
  });
});
