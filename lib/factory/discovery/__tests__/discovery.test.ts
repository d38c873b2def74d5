import { describe, expect, it } from 'vitest';
import { useRouteSites } from '../../../../test/helpers/route-site.js';
import { discover, hostVariants } from '../discovery.js';
import { sitemapLinksOf } from '../home-page-links.js';
import { resolveWalkOptions } from '../../../core/limits.js';
import { discoverSitemaps, walkSitemap, walkUrlEvents } from '../../sitemap.js';
import { XML, collect, urlsetXml } from '../../../../test/helpers/sitemap-xml.js';

const open = { net: { allowPrivate: true } };
const serve = useRouteSites();

describe('discoverSitemaps from robots.txt', () => {
  it('returns the single Sitemap line', async () => {
    const site = await serve({ '/robots.txt': { body: 'User-agent: *\nSitemap: /only.xml\n' } });
    expect(await discoverSitemaps(site.origin, open)).toEqual([site.url('/only.xml')]);
  });

  it('returns several lines: mixed case, relative, absolute, with BOM and CRLF, deduped', async () => {
    const robots = (origin: string) =>
      `\uFEFFUser-agent: *\r\nSITEMAP: ${origin}/a.xml\r\nsitemap: /b.xml.gz\r\nSitemap: ${origin.replace('http', 'HTTP')}/a.xml\r\n`;
    const site = await serve.with((request) => (request.url === '/robots.txt' ? { body: robots(`http://${request.headers.host}`) } : null));
    expect(await discoverSitemaps(site.origin, open)).toEqual([site.url('/a.xml'), site.url('/b.xml.gz')]);
  });

  it('skips Sitemap lines that point at refused addresses and keeps the rest', async () => {
    const site = await serve({ '/robots.txt': { body: 'Sitemap: http://169.254.169.254/latest/meta-data\nSitemap: /ok.xml\n' } });
    const found = await discover(site.origin, resolveWalkOptions({ net: { allowHosts: [new URL(site.origin).host] } }));
    expect(found.sitemaps).toEqual([site.url('/ok.xml')]);
    expect(found.problems).toEqual([expect.objectContaining({ kind: 'blocked_ssrf', url: 'http://169.254.169.254/latest/meta-data' })]);
  });
});

describe('discoverSitemaps fallback chain', () => {
  it.each(['/sitemap.xml', '/sitemap_index.xml', '/sitemap-index.xml'])('finds %s when robots.txt is a 404', async (path) => {
    const site = await serve({ [path]: { headers: XML, body: urlsetXml(['https://example.com/']) } });
    expect(await discoverSitemaps(site.origin, open)).toEqual([site.url(path)]);
    expect(site.hits('/robots.txt')).toBe(1);
    expect(site.hits(path, 'HEAD')).toBe(1);
  });

  it('tries the paths in order and stops at the first 2xx', async () => {
    const asked: string[] = [];
    const site = await serve.with((request) => {
      asked.push(`${request.method} ${request.url}`);
      return request.url === '/sitemap-index.xml' ? { body: '<sitemapindex/>' } : null;
    });
    const found = await discover(site.origin, resolveWalkOptions(open));
    expect(found).toMatchObject({ sitemaps: [site.url('/sitemap-index.xml')], source: 'fallback' });
    // The home page first (no sitemap link there); a 404 on HEAD is an answer: no GET retry, and nothing after the first
    // 2xx (sitemap.xml.gz and later stay unasked).
    expect(asked).toEqual(['GET /robots.txt', 'GET /', 'HEAD /sitemap.xml', 'HEAD /sitemap_index.xml', 'HEAD /sitemap-index.xml']);
  });

  it('skips a well-known path that robots.txt disallows, and says so', async () => {
    const site = await serve({
      '/robots.txt': { body: 'User-agent: *\nDisallow: /sitemap.xml\n' },
      '/sitemap.xml': { body: urlsetXml(['https://example.com/']) },
      '/sitemap_index.xml': { body: '<sitemapindex/>' },
    });
    const found = await discover(site.origin, resolveWalkOptions(open));
    expect(found.sitemaps).toEqual([site.url('/sitemap_index.xml')]);
    expect(site.hits('/sitemap.xml')).toBe(0);
    expect(found.problems[0]).toMatchObject({ kind: 'robots_forbidden', url: site.url('/sitemap.xml') });
  });

  it('returns [] when nothing is found', async () => {
    const site = await serve({});
    const found = await discover(site.origin, resolveWalkOptions(open));
    expect(found).toMatchObject({ sitemaps: [], source: 'none' });
  });
});

describe('robots.txt failures (RFC 9309)', () => {
  it.each([500, 503, 429])('treats %i as unreachable: robots_unreachable, no sitemap probed', async (status) => {
    const site = await serve({ '/robots.txt': { status, body: 'down' }, '/sitemap.xml': { body: urlsetXml(['https://e.com/']) } });
    await expect(discoverSitemaps(site.origin, open)).rejects.toMatchObject({ kind: 'robots_unreachable' });
    expect(site.hits('/sitemap.xml')).toBe(0);
  });

  it('refuses a loopback root without --allow-private: blocked_ssrf before any request', async () => {
    const site = await serve({ '/robots.txt': { body: 'Sitemap: /x.xml' } });
    await expect(discoverSitemaps(site.origin)).rejects.toMatchObject({ kind: 'blocked_ssrf' });
    expect(site.totalRequests()).toBe(0);
  });

  it('refuses a non-http root with invalid_url', async () => {
    await expect(discoverSitemaps('ftp://example.com/')).rejects.toMatchObject({ kind: 'invalid_url' });
  });
});

describe('when every robots.txt sitemap fails', () => {
  it('falls back to a well-known path and reports the stale line', async () => {
    const site = await serve({
      '/robots.txt': { body: 'Sitemap: /stale.xml\n' },
      '/sitemap.xml': { body: urlsetXml(['https://example.com/a', 'https://example.com/b']) },
    });
    const events = [];
    for await (const event of walkUrlEvents(site.origin, open)) events.push(event);
    expect(events.flatMap((event) => (event.type === 'batch' ? event.items : []))).toEqual(['https://example.com/a', 'https://example.com/b']);
    expect(events.filter((event) => event.type === 'error')).toEqual([expect.objectContaining({ kind: 'http_status', url: site.url('/stale.xml') })]);
  });

  it('throws the robots sitemap failure when no well-known path answers either', async () => {
    const site = await serve({ '/robots.txt': { body: 'Sitemap: /stale.xml\n' } });
    await expect(collect(walkSitemap(site.origin, open))).rejects.toMatchObject({ kind: 'http_status', url: site.url('/stale.xml') });
  });
});

describe('walking a site that publishes no sitemap', () => {
  it('fails with not_sitemap instead of an empty success', async () => {
    const site = await serve({ '/robots.txt': { body: 'User-agent: *\nDisallow:\n' } });
    await expect(collect(walkSitemap(site.origin, open))).rejects.toMatchObject({ kind: 'not_sitemap', url: site.origin });
  });
});

describe('fallback paths that fail rather than answer', () => {
  it('reports a well-known path that times out, and goes on to the next', async () => {
    const site = await serve({
      '/sitemap.xml': { delayMs: 2_000, body: 'late' },
      '/sitemap_index.xml': { body: '<sitemapindex/>' },
    });
    const found = await discover(site.origin, resolveWalkOptions({ ...open, robotsTimeoutMs: 300 }));
    expect(found.sitemaps).toEqual([site.url('/sitemap_index.xml')]);
    expect(found.problems).toContainEqual(expect.objectContaining({ kind: 'timeout', url: site.url('/sitemap.xml') }));
  });
});

describe('the home page\'s <link rel="sitemap">', () => {
  const HTML = { 'content-type': 'text/html; charset=utf-8' };
  const page = (head: string) => ({ headers: HTML, body: `<!doctype html><html><head><title>x</title>${head}</head><body>hello</body></html>` });

  it('names the sitemaps when robots.txt lists none, before any well-known path is probed', async () => {
    const site = await serve({
      '/robots.txt': { body: 'User-agent: *\nDisallow: /private/\n' },
      '/': page(`<link rel="alternate" href="/feed.xml"><link type="application/xml" rel='Sitemap' href="/sitemap/sitemap-index.xml"/>`),
      '/sitemap.xml': { body: urlsetXml(['https://example.com/wrong']) },
    });
    const found = await discover(site.origin, resolveWalkOptions(open));
    expect(found).toMatchObject({ source: 'home-page', sitemaps: [site.url('/sitemap/sitemap-index.xml')], requests: 2 });
    expect(site.hits('/sitemap.xml')).toBe(0);
  });

  it('is not read when robots.txt disallows it; a link the SSRF policy refuses is reported and the chain goes on', async () => {
    const closed = await serve({ '/robots.txt': { body: 'User-agent: *\nDisallow: /\n' }, '/': page('<link rel="sitemap" href="/s.xml">') });
    expect(await discover(closed.origin, resolveWalkOptions(open))).toMatchObject({ source: 'none' });
    expect(closed.hits('/')).toBe(0);
    const refused = await serve({
      '/': page('<link rel="sitemap" href="http://169.254.169.254/latest/meta-data">'),
      '/sitemap.xml': { body: urlsetXml(['https://example.com/a']) },
    });
    const found = await discover(refused.origin, resolveWalkOptions(open));
    expect(found).toMatchObject({ source: 'fallback', sitemaps: [refused.url('/sitemap.xml')] });
    expect(found.problems[0]).toMatchObject({ kind: 'blocked_ssrf', url: 'http://169.254.169.254/latest/meta-data' });
  });

  it('a page that is not HTML, or does not answer, is no sitemap and no failure', async () => {
    const site = await serve({ '/': { headers: { 'content-type': 'application/json' }, body: '{"link":"<link rel=sitemap href=/x.xml>"}' } });
    expect(await discover(site.origin, resolveWalkOptions(open))).toMatchObject({ source: 'none', sitemaps: [] });
  });
});

describe("the generators' well-known paths", () => {
  it('finds a news sitemap or a Magento media sitemap when nothing else answers, after the main paths', async () => {
    for (const path of ['/news-sitemap.xml', '/sitemap-news.xml', '/media/sitemap.xml']) {
      const site = await serve({ [path]: { headers: XML, body: urlsetXml(['https://example.com/a']) } });
      expect(await discover(site.origin, resolveWalkOptions(open))).toMatchObject({ source: 'fallback', sitemaps: [site.url(path)] });
      expect(site.hits('/sitemap.xml')).toBe(1);
    }
  });
});

describe('host variants', () => {
  it('asks www. (and https for http) when the root publishes nothing, and says which root answered', async () => {
    const site = await serve.with((request) => {
      const host = (request.headers.host ?? '').split(':')[0];
      if (host !== 'www.example.test') return null;
      if (request.url === '/robots.txt') return { body: `Sitemap: http://www.example.test:${request.socket.localPort}/sitemap.xml\n` };
      return request.url === '/sitemap.xml' ? { headers: XML, body: urlsetXml(['http://www.example.test/a']) } : null;
    });
    const net = { allowPrivate: true, resolve: ['example.test', 'www.example.test'].map((host) => ({ host, port: site.port, address: '127.0.0.1' })) };
    const found = await discover(`http://example.test:${site.port}/`, resolveWalkOptions({ net }));
    expect(found).toMatchObject({
      source: 'robots',
      rootUrl: `http://www.example.test:${site.port}/`,
      canonicalRoot: `http://www.example.test:${site.port}/`,
      sitemaps: [`http://www.example.test:${site.port}/sitemap.xml`],
    });
    // The variant that does not answer (https on a plain-HTTP port) is no failure and no problem of the site.
    expect(found.problems.every((problem) => !problem.url?.startsWith('https:'))).toBe(true);
  });

  it('has no variants for an IP address, a single label or a sub-path site', () => {
    expect(hostVariants(new URL('http://127.0.0.1:8080/'))).toEqual([]);
    expect(hostVariants(new URL('http://intranet/'))).toEqual([]);
    expect(hostVariants(new URL('https://example.com/blog/'))).toEqual([]);
    expect(hostVariants(new URL('https://www.example.com/')).map(String)).toEqual(['https://example.com/']);
    expect(hostVariants(new URL('http://example.com/')).map(String)).toEqual(['http://www.example.com/', 'https://example.com/', 'https://www.example.com/']);
  });
});

describe('sitemapLinksOf', () => {
  it('reads rel tokens in any case and quoting, resolves relative hrefs, and keeps http(s) links once', () => {
    const html = `<link rel="sitemap" href="/a.xml"><LINK REL="alternate sitemap" HREF='b.xml'><link rel=sitemap href=/a.xml>
      <link rel="sitemap" href="javascript:alert(1)"><link rel="stylesheet" href="/s.css"><link rel="sitemap" href="https://cdn.example/c.xml?x=1&amp;y=2">`;
    expect(sitemapLinksOf(html, 'https://example.com/blog/')).toEqual([
      'https://example.com/a.xml',
      'https://example.com/blog/b.xml',
      'https://cdn.example/c.xml?x=1&y=2',
    ]);
  });
});
