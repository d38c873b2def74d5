import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { CannedResponse, LoopbackServer } from '../../../demo/loopback-server.js';
import { useRouteSites } from '../../../../test/helpers/route-site.js';
import { isFactoryError } from '../../../core/errors.js';
import { SpreadSample, spreadPick } from '../scope-counter.js';
import { DEFAULT_SECONDS_PER_SITEMAP, MAX_SITEMAP_REQUESTS, estimateScope, type EstimateOptions } from '../scope-estimator.js';
import { ScopeEstimateSchema, type ScopeEstimate } from '../../../core/types.js';
import { XML, indexXml, pageUrls, urlsetXml } from '../../../../test/helpers/sitemap-xml.js';

const open: EstimateOptions = { net: { allowPrivate: true } };
const serve = useRouteSites();

async function estimate(site: LoopbackServer, options: EstimateOptions = {}): Promise<ScopeEstimate> {
  const result = await estimateScope(`${site.origin}/`, { ...open, ...options });
  // The answer is what the wizard reads: it must always satisfy the schema, with the point inside the range.
  expect(ScopeEstimateSchema.parse(result)).toEqual(result);
  if (result.urlEstimate !== null) {
    expect(result.urlEstimate).toBeGreaterThanOrEqual(result.urlEstimateRange[0]);
    expect(result.urlEstimate).toBeLessThanOrEqual(result.urlEstimateRange[1]);
  }
  return result;
}

const robotsFor = (...paths: string[]) => ({ body: `User-agent: *\n${paths.map((path) => `Sitemap: ${path}`).join('\n')}\n` });

// Apple-style: one index of 531 children, each a urlset of `perChild` URLs.
function appleSite(origin: string, perChild: number, child: Partial<CannedResponse> = {}): Record<string, CannedResponse> {
  const children = Array.from({ length: 531 }, (_, i) => `${origin}/sitemaps/c-${i}.xml`);
  const routes: Record<string, CannedResponse> = {
    '/robots.txt': robotsFor('/sitemap_index.xml'),
    '/sitemap_index.xml': { headers: XML, body: indexXml(children) },
  };
  children.forEach((url, i) => {
    routes[new URL(url).pathname] = { headers: XML, body: urlsetXml(pageUrls(origin, perChild, `c${i}`)), ...child };
  });
  return routes;
}

describe('estimateScope: a flat urlset', () => {
  it('counts its entries exactly: range [n, n], no sub-sitemaps, fetch transport, two requests', async () => {
    const site = await serve((origin) => ({
      '/robots.txt': robotsFor('/sitemap.xml'),
      '/sitemap.xml': { headers: XML, body: urlsetXml(pageUrls(origin, 1234)) },
    }));
    const result = await estimate(site);
    expect(result).toMatchObject({
      rootUrl: `${site.origin}/`,
      sitemaps: [site.url('/sitemap.xml')],
      subSitemapCount: 0,
      urlEstimateRange: [1234, 1234],
      urlEstimate: 1234,
      sampledChildren: 0,
      transport: 'fetch',
      requests: 2,
      warnings: [],
    });
    expect(site.totalRequests()).toBe(2);
    // Read to the end, so the walk is expected to take what the read took, well under the 5 s default.
    expect(result.expectedDuration).toBeLessThan(5);
  });

  it('adds hreflang alternates the sitemap does not list as locs: x the number of locales', async () => {
    const site = await serve((origin) => {
      const alternates = (loc: string) =>
        ['en', 'de', 'fr']
          .map((lang) => `<xhtml:link rel="alternate" hreflang="${lang}" href="${lang === 'en' ? loc : loc.replace(origin, `${origin}/${lang}`)}"/>`)
          .join('');
      return { '/robots.txt': robotsFor('/sitemap.xml'), '/sitemap.xml': { headers: XML, body: urlsetXml(pageUrls(origin, 100), alternates) } };
    });
    const result = await estimate(site);
    // 100 English locs (each its own `en` alternate) + 100 German + 100 French alternates.
    expect(result.urlEstimateRange).toEqual([300, 300]);
    expect(result.urlEstimate).toBe(300);
    expect(result.languagesDetected).toEqual(['de', 'en', 'fr']);
  });

  it('does not multiply when every locale version is listed as a loc and they point at each other', async () => {
    const site = await serve((origin) => {
      const langs = ['en-us', 'de-de', 'ja'];
      const locs = langs.flatMap((lang) => pageUrls(origin, 50, `${lang}/p`));
      const cluster = (loc: string) =>
        langs.map((lang) => `<xhtml:link rel="alternate" hreflang="${lang}" href="${loc.replace(/\/[a-z-]+\/p\//, `/${lang}/p/`)}"/>`).join('');
      return { '/robots.txt': robotsFor('/sitemap.xml'), '/sitemap.xml': { headers: XML, body: urlsetXml(locs, cluster) } };
    });
    const result = await estimate(site);
    expect(result.urlEstimateRange).toEqual([150, 150]);
    expect(result.languagesDetected).toEqual(['de-DE', 'en-US', 'ja']);
  });

  it('a urlset cut by the budget: a lower bound, scaled up by the share of the declared length read', async () => {
    const site = await serve((origin) => {
      const body = urlsetXml(pageUrls(origin, 2000));
      const step = Math.ceil(body.length / 20);
      const chunks = Array.from({ length: 20 }, (_, i) => body.slice(i * step, (i + 1) * step));
      const headers = { ...XML, 'content-length': String(Buffer.byteLength(body)) };
      return { '/robots.txt': robotsFor('/slow.xml'), '/slow.xml': { headers, chunks, chunkDelayMs: 100 } };
    });
    const result = await estimate(site, { budgetMs: 600 });
    const [counted, ceiling] = result.urlEstimateRange;
    expect(counted).toBeGreaterThan(100);
    expect(counted).toBeLessThan(2000);
    expect(ceiling).toBeGreaterThanOrEqual(50_000);
    // Bytes per URL are uniform here, so the scaled count lands within a few per cent of the 2,000 there are.
    expect(result.urlEstimate).toBeGreaterThan(1800);
    expect(result.urlEstimate).toBeLessThan(2200);
    expect(result.transport).toBe('fetch');
    expect(result.warnings.join('\n')).toContain('cut by the 600 ms deadline');
  });

  it('a cut urlset without a declared length gives no point estimate', async () => {
    const site = await serve((origin) => {
      const body = urlsetXml(pageUrls(origin, 2000));
      const chunks = Array.from({ length: 20 }, (_, i) => body.slice(i * 5_000, (i + 1) * 5_000)).concat(body.slice(100_000));
      return { '/robots.txt': robotsFor('/slow.xml'), '/slow.xml': { headers: XML, chunks, chunkDelayMs: 100 } };
    });
    const result = await estimate(site, { budgetMs: 600 });
    expect(result.urlEstimate).toBeNull();
    expect(result.urlEstimateRange[0]).toBeGreaterThan(0);
  });
});

describe('estimateScope: a sitemap index (the Apple pattern)', () => {
  it('answers a 531-child index from robots.txt, the index and 3 sampled children only, well under 2 s', async () => {
    const site = await serve((origin) => appleSite(origin, 200));
    const result = await estimate(site);
    expect(result).toMatchObject({
      subSitemapCount: 531,
      sampledChildren: 3,
      urlEstimate: 531 * 200,
      // The floor is what was counted (3 sampled children of 200); the ceiling stays 50,000 a child.
      urlEstimateRange: [3 * 200, 531 * 50_000],
      transport: 'fetch',
      requests: 5,
    });
    expect(site.totalRequests()).toBe(5);
    expect(site.hits('/robots.txt') + site.hits('/sitemap_index.xml')).toBe(2);
    expect(result.probeMs).toBeLessThan(1_000);
    // Measured read times replace the 1.5 s a sitemap default.
    expect(result.expectedDuration).toBeLessThan((531 / 8) * DEFAULT_SECONDS_PER_SITEMAP);
  });

  it('samples spread over the index (first, middle, last), and averages different sizes', async () => {
    const site = await serve((origin) => {
      const children = Array.from({ length: 9 }, (_, i) => `${origin}/c-${i}.xml`);
      const routes: Record<string, CannedResponse> = { '/robots.txt': robotsFor('/index.xml'), '/index.xml': { body: indexXml(children) } };
      children.forEach((url, i) => (routes[new URL(url).pathname] = { body: urlsetXml(pageUrls(origin, 10 * (i + 1), `c${i}`)) }));
      return routes;
    });
    const result = await estimate(site);
    expect([site.hits('/c-0.xml'), site.hits('/c-4.xml'), site.hits('/c-8.xml')]).toEqual([1, 1, 1]);
    expect(site.totalRequests()).toBe(5);
    // (10 + 50 + 90) / 3 = 50 a child, x 9 children.
    expect(result.urlEstimate).toBe(450);
    expect(result.urlEstimateRange).toEqual([10 + 50 + 90, 9 * 50_000]);
  });

  it('keeps the contract range and default duration when no child can be sampled within the budget', async () => {
    const site = await serve((origin) => appleSite(origin, 200, { delayMs: 3_000 }));
    const result = await estimate(site, { budgetMs: 400 });
    expect(result).toMatchObject({
      subSitemapCount: 531,
      sampledChildren: 0,
      urlEstimate: null,
      // Nothing counted: nothing is assumed of the children (one could be empty).
      urlEstimateRange: [0, 531 * 50_000],
      expectedDuration: Math.round((531 / 8) * 1.5 * 100) / 100,
      // Slow children are not a WAF signal: only robots.txt and the top sitemaps are.
      transport: 'fetch',
    });
    expect(result.probeMs).toBeLessThan(1_500);
    expect(result.warnings.join('\n')).toContain('no sub-sitemap could be sampled');
  });

  it('samples nested indexes one level deeper and counts the index levels into the duration', async () => {
    const site = await serve((origin) => {
      const routes: Record<string, CannedResponse> = { '/robots.txt': robotsFor('/root.xml') };
      const sections = ['a', 'b', 'c'];
      routes['/root.xml'] = { body: indexXml(sections.map((s) => `${origin}/${s}/index.xml`)) };
      for (const s of sections) {
        const parts = Array.from({ length: 4 }, (_, i) => `${origin}/${s}/part-${i}.xml`);
        routes[`/${s}/index.xml`] = { body: indexXml(parts) };
        parts.forEach((url, i) => (routes[new URL(url).pathname] = { body: urlsetXml(pageUrls(origin, 50, `${s}${i}`)) }));
      }
      return routes;
    });
    const result = await estimate(site);
    expect(result).toMatchObject({ subSitemapCount: 3, sampledChildren: 3, urlEstimate: 3 * 4 * 50 });
    // robots + root + 3 section indexes + one part of each.
    expect(result.requests).toBe(8);
    expect(site.totalRequests()).toBe(8);
    // A nested child can hold up to 4 x 50,000: the ceiling says so.
    expect(result.urlEstimateRange[1]).toBe(3 * 4 * 50_000);
  });

  it('does not count or sample a child that is the top sitemap again (a cycle the walk skips)', async () => {
    const site = await serve((origin) => ({
      '/robots.txt': robotsFor('/index.xml'),
      '/index.xml': { body: indexXml([`${origin.replace('http', 'HTTP')}/index.xml/`, `${origin}/a.xml`]) },
      '/a.xml': { body: urlsetXml(pageUrls(origin, 7)) },
    }));
    const result = await estimate(site);
    expect(result).toMatchObject({ subSitemapCount: 1, sampledChildren: 1, urlEstimate: 7 });
    expect(site.hits('/index.xml')).toBe(1);
  });

  it('keeps the request count bounded whatever the tree: the top sitemaps plus one chain per sample', async () => {
    // Five top sitemaps in robots.txt, each an index of 10 indexes of 10 indexes... without end.
    const site = await serve.with((request) => {
      const path = request.url ?? '/';
      if (path === '/robots.txt') return robotsFor(...Array.from({ length: 5 }, (_, i) => `/n-${i}.xml`));
      const stem = path.replace(/\.xml$/, '');
      return { headers: XML, body: indexXml(Array.from({ length: 10 }, (_, j) => `http://${request.headers.host}${stem}-${j}.xml`)) };
    });
    const result = await estimate(site);
    // robots.txt + 4 tops + 3 samples x (the child and 2 levels below it).
    expect(result.requests).toBe(1 + MAX_SITEMAP_REQUESTS);
    expect(site.totalRequests()).toBe(1 + MAX_SITEMAP_REQUESTS);
    expect(result.subSitemapCount).toBe(4 * 10 + 1);
    expect(result.warnings.join('\n')).toContain('1 not read');
  });
});

describe('estimateScope: languages', () => {
  it('detects languages from locale folders and skips ordinary two-letter folders (/go/, /js/)', async () => {
    const site = await serve((origin) => {
      const paths = ['en-us', 'de-de', 'fr', 'zh-hans', 'go', 'js'].flatMap((folder) => pageUrls(origin, 3, `${folder}/docs`));
      return { '/robots.txt': robotsFor('/sitemap.xml'), '/sitemap.xml': { body: urlsetXml(paths) } };
    });
    expect((await estimate(site)).languagesDetected).toEqual(['de-DE', 'en-US', 'fr', 'zh-Hans']);
  });

  it('reads /it/ as a section next to ordinary folders, and as Italian among locale folders', async () => {
    const section = await serve((origin) => ({
      '/robots.txt': robotsFor('/sitemap.xml'),
      '/sitemap.xml': { body: urlsetXml([...pageUrls(origin, 3, 'it/help'), ...pageUrls(origin, 3, 'blog')]) },
    }));
    expect((await estimate(section)).languagesDetected).toEqual([]);
    await section.close();
    const localised = await serve((origin) => ({
      '/robots.txt': robotsFor('/sitemap.xml'),
      '/sitemap.xml': { body: urlsetXml(['it', 'en', 'fr-fr'].flatMap((folder) => pageUrls(origin, 3, `${folder}/x`))) },
    }));
    expect((await estimate(localised)).languagesDetected).toEqual(['en', 'fr-FR', 'it']);
  });

  it('takes languages from hreflang tags and from the paths of child sitemaps', async () => {
    const site = await serve((origin) => ({
      '/robots.txt': robotsFor('/index.xml'),
      '/index.xml': { body: indexXml([`${origin}/ja/sitemap.xml`, `${origin}/pt-br/sitemap.xml`]) },
      '/ja/sitemap.xml': { body: urlsetXml([`${origin}/page`], () => '<xhtml:link rel="alternate" hreflang="ko" href="https://other.example/ko"/>') },
      '/pt-br/sitemap.xml': { body: urlsetXml([`${origin}/pagina`]) },
    }));
    expect((await estimate(site)).languagesDetected).toEqual(['ja', 'ko', 'pt-BR']);
  });
});

describe('estimateScope: transport and WAF signals', () => {
  it('robots.txt 403: playwright, and discovery goes on with the fallback chain', async () => {
    const site = await serve((origin) => ({
      '/robots.txt': { status: 403, body: 'Forbidden' },
      '/sitemap.xml': { headers: XML, body: urlsetXml(pageUrls(origin, 12)) },
    }));
    const result = await estimate(site);
    expect(result).toMatchObject({ transport: 'playwright', urlEstimate: 12, sitemaps: [site.url('/sitemap.xml')] });
    expect(result.warnings[0]).toContain('robots.txt answered 403');
  });

  it('a top sitemap answering 403: playwright, an estimate with no point, and a warning', async () => {
    const site = await serve(() => ({ '/robots.txt': robotsFor('/sitemap.xml'), '/sitemap.xml': { status: 403, body: 'denied' } }));
    const result = await estimate(site);
    expect(result).toMatchObject({ transport: 'playwright', urlEstimate: null, urlEstimateRange: [0, 0], requests: 2 });
    expect(result.warnings.join('\n')).toContain('answered 403');
  });

  it('a top sitemap that does not answer within the budget: playwright, in about the budget', async () => {
    const site = await serve((origin) => ({
      '/robots.txt': robotsFor('/slow.xml'),
      '/slow.xml': { delayMs: 5_000, body: urlsetXml(pageUrls(origin, 3)) },
    }));
    const result = await estimate(site, { budgetMs: 400 });
    expect(result.transport).toBe('playwright');
    expect(result.warnings.join('\n')).toContain('did not answer within the budget');
    expect(result.probeMs).toBeLessThan(1_500);
  });

  it('a top sitemap that is merely missing (404) is a warning, not a WAF signal', async () => {
    const site = await serve(() => ({ '/robots.txt': robotsFor('/gone.xml') }));
    const result = await estimate(site);
    // Its only sitemap is gone: the walk would find nothing, which is known, not unknown.
    expect(result).toMatchObject({ transport: 'fetch', urlEstimate: 0, urlEstimateRange: [0, 0] });
    expect(result.warnings.join('\n')).toContain('http_status');
  });

  it.each([503, 429])('robots.txt %i: RFC 9309 disallow-all, so no sitemap is read; playwright', async (status) => {
    const site = await serve((origin) => ({
      '/robots.txt': { status, body: 'busy' },
      '/sitemap.xml': { body: urlsetXml(pageUrls(origin, 3)) },
    }));
    const result = await estimate(site);
    expect(result).toMatchObject({ transport: 'playwright', sitemaps: [], urlEstimateRange: [0, 0], urlEstimate: null, requests: 1 });
    expect(site.totalRequests()).toBe(1);
    expect(result.warnings[0]).toContain(`robots.txt answered ${status}`);
  });

  it('robots.txt timing out: playwright, within about the budget', async () => {
    const site = await serve(() => ({ '/robots.txt': { delayMs: 5_000, body: 'User-agent: *\n' } }));
    const result = await estimate(site, { budgetMs: 300 });
    expect(result).toMatchObject({ transport: 'playwright', sitemaps: [], urlEstimate: null });
    expect(result.probeMs).toBeLessThan(1_000);
  });

  it('throws robots_unreachable when nothing listens at all (a down site, not a guarded one)', async () => {
    const port = await freePort();
    await expect(estimateScope(`http://127.0.0.1:${port}/`, open)).rejects.toSatisfy(
      (error: unknown) => isFactoryError(error) && error.kind === 'robots_unreachable',
    );
  });
});

describe('estimateScope: discovery and input', () => {
  it('finds the sitemap through the fallback chain when robots.txt is missing', async () => {
    const site = await serve((origin) => ({
      '/sitemap_index.xml': { headers: XML, body: indexXml([`${origin}/a.xml`, `${origin}/b.xml`]) },
      '/a.xml': { body: urlsetXml(pageUrls(origin, 30, 'a')) },
      '/b.xml': { body: urlsetXml(pageUrls(origin, 10, 'b')) },
    }));
    const result = await estimate(site);
    expect(result).toMatchObject({ sitemaps: [site.url('/sitemap_index.xml')], subSitemapCount: 2, sampledChildren: 2, urlEstimate: 40 });
    expect(result.requests).toBe(site.totalRequests());
  });

  it('answers an empty estimate with a warning when a site has no sitemap', async () => {
    const site = await serve(() => ({}));
    const result = await estimate(site);
    expect(result).toMatchObject({ sitemaps: [], urlEstimateRange: [0, 0], urlEstimate: 0, transport: 'fetch' });
    expect(result.warnings).toContain('no sitemap in robots.txt, on the home page nor at the well-known paths');
    expect(result.sitemapSource).toBe('none');
  });

  it('refuses loopback targets unless allowed, a bad URL, and a bad budget', async () => {
    const kind = (promise: Promise<unknown>) =>
      promise.then(
        () => null,
        (error: unknown) => (isFactoryError(error) ? error.kind : 'other'),
      );
    expect(await kind(estimateScope('http://127.0.0.1:9/'))).toBe('blocked_ssrf');
    expect(await kind(estimateScope('ftp://example.com/'))).toBe('invalid_url');
    expect(await kind(estimateScope('https://example.com/', { budgetMs: 0 }))).toBe('bad_request');
  });

  it('stops with the caller signal', async () => {
    const site = await serve((origin) => appleSite(origin, 10, { delayMs: 2_000 }));
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('cancelled by test')), 200);
    await expect(estimateScope(`${site.origin}/`, { ...open, signal: controller.signal })).rejects.toThrow('cancelled by test');
  });
});

describe('sample choice', () => {
  it('SpreadSample keeps an evenly strided, bounded sample of any stream', () => {
    const sample = new SpreadSample(4);
    for (let i = 0; i < 1000; i++) sample.add(String(i));
    const kept = sample.items().map(Number);
    expect(kept.length).toBeLessThan(8);
    expect(kept[0]).toBe(0);
    const gaps = new Set(kept.slice(1).map((value, i) => value - (kept[i] ?? 0)));
    expect(gaps.size).toBe(1);
  });

  it('spreadPick takes first, middle and last, or the middle for one', () => {
    expect(spreadPick([0, 1, 2, 3, 4, 5, 6, 7, 8], 3)).toEqual([0, 4, 8]);
    expect(spreadPick([0, 1, 2, 3], 1)).toEqual([2]);
    expect(spreadPick([0, 1], 3)).toEqual([0, 1]);
  });
});

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((ready) => probe.listen(0, '127.0.0.1', ready));
  const address = probe.address();
  await new Promise<void>((done) => probe.close(() => done()));
  return typeof address === 'object' && address !== null ? address.port : 0;
}
