import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { useRouteSites } from '../../../../test/helpers/route-site.js';
import { walkSitemap, walkSitemapEntries, walkUrlEvents, type WalkEvent } from '../../sitemap.js';
import { XML, collect, indexXml, pageUrls, urlsetXml } from '../../../../test/helpers/sitemap-xml.js';

const open = { net: { allowPrivate: true } };
const serve = useRouteSites();

async function allEvents<T>(events: AsyncIterable<WalkEvent<T>>): Promise<Array<WalkEvent<T>>> {
  const out: Array<WalkEvent<T>> = [];
  for await (const event of events) out.push(event);
  return out;
}

describe('walking urlsets and indexes', () => {
  it('streams a flat urlset', async () => {
    const site = await serve((origin) => ({ '/sitemap.xml': { headers: XML, body: urlsetXml(pageUrls(origin, 3)) } }));
    expect(await collect(walkSitemap(site.url('/sitemap.xml'), open))).toEqual(pageUrls(site.origin, 3));
  });

  it('follows an index to both children', async () => {
    const site = await serve((origin) => ({
      '/index.xml': { body: indexXml([`${origin}/a.xml`, `${origin}/b.xml`]) },
      '/a.xml': { body: urlsetXml(pageUrls(origin, 2, 'a')) },
      '/b.xml': { body: urlsetXml(pageUrls(origin, 2, 'b')) },
    }));
    const urls = await collect(walkSitemap(site.url('/index.xml'), open));
    expect(urls.sort()).toEqual([...pageUrls(site.origin, 2, 'a'), ...pageUrls(site.origin, 2, 'b')].sort());
  });

  it('walks root -> product -> language (depth 3) and records each entry depth and source', async () => {
    const site = await serve((origin) => ({
      '/root.xml': { body: indexXml([`${origin}/product.xml`]) },
      '/product.xml': { body: indexXml([`${origin}/product-en.xml`, `${origin}/product-de.xml.gz`]) },
      '/product-en.xml': { body: urlsetXml([`${origin}/en/p1`]) },
      '/product-de.xml.gz': { body: gzipSync(urlsetXml([`${origin}/de/p1`])) },
    }));
    const entries = await collect(walkSitemapEntries(site.url('/root.xml'), open));
    expect(entries.map((entry) => [entry.loc, entry.depth, entry.source]).sort()).toEqual([
      [`${site.origin}/de/p1`, 2, `${site.origin}/product-de.xml.gz`],
      [`${site.origin}/en/p1`, 2, `${site.origin}/product-en.xml`],
    ]);
  });

  it('fetches each sitemap once through a self-reference and a cycle of URL variants', async () => {
    const site = await serve((origin) => {
      const upper = origin.replace('127.0.0.1', '127.0.0.1').replace('http://', 'HTTP://');
      return {
        '/index.xml': { body: indexXml([`${origin}/index.xml`, `${origin}/child.xml`, `${upper}/index.xml#again`]) },
        '/child.xml': { body: indexXml([`${origin}/index.xml/`, `${origin}/leaf.xml`, `${origin}/child.xml`]) },
        '/leaf.xml': { body: urlsetXml(pageUrls(origin, 5)) },
        '/index.xml/': { body: indexXml([`${origin}/leaf.xml`]) },
      };
    });
    const urls = await collect(walkSitemap(site.url('/index.xml'), open));
    expect(urls).toEqual(pageUrls(site.origin, 5));
    expect([site.hits('/index.xml'), site.hits('/child.xml'), site.hits('/leaf.xml'), site.hits('/index.xml/')]).toEqual([1, 1, 1, 0]);
  });

  it('reports a failing child with its kind and parent, and goes on', async () => {
    const site = await serve((origin) => ({
      '/index.xml': { body: indexXml([`${origin}/missing.xml`, `${origin}/ok.xml`]) },
      '/ok.xml': { body: urlsetXml(pageUrls(origin, 2)) },
    }));
    const events = await allEvents(walkUrlEvents(site.url('/index.xml'), open));
    expect(events.filter((event) => event.type === 'error')).toEqual([
      expect.objectContaining({ kind: 'http_status', url: site.url('/missing.xml'), parent: site.url('/index.xml'), depth: 1 }),
    ]);
    expect(events.flatMap((event) => (event.type === 'batch' ? event.items : []))).toEqual(pageUrls(site.origin, 2));
    expect(events.at(-1)).toMatchObject({ type: 'summary', urls: 2, errors: 1, sitemaps: 2 });
  });

  it('throws the root failure when nothing at all could be read', async () => {
    const site = await serve(() => ({}));
    await expect(collect(walkSitemap(site.url('/nope.xml'), open))).rejects.toMatchObject({ kind: 'http_status', url: site.url('/nope.xml') });
  });

  it('skips a child on a refused host as blocked_ssrf while the rest is walked', async () => {
    const site = await serve((origin) => ({
      '/index.xml': { body: indexXml(['http://169.254.169.254/latest/sitemap.xml', `${origin}/ok.xml`]) },
      '/ok.xml': { body: urlsetXml(pageUrls(origin, 1)) },
    }));
    const events = await allEvents(walkUrlEvents(site.url('/index.xml'), { net: { allowHosts: [new URL(site.origin).host] } }));
    expect(events.filter((event) => event.type === 'error')).toEqual([expect.objectContaining({ kind: 'blocked_ssrf' })]);
    expect(events.at(-1)).toMatchObject({ type: 'summary', urls: 1 });
  });
});

describe('batches and limits', () => {
  it('delivers a 50,000-URL urlset as exactly 50 batches of 1000', async () => {
    const site = await serve((origin) => ({ '/big.xml': { body: urlsetXml(pageUrls(origin, 50_000)) } }));
    const sizes: number[] = [];
    for await (const batch of walkSitemap(site.url('/big.xml'), open)) sizes.push(batch.length);
    expect(sizes).toEqual(Array.from({ length: 50 }, () => 1000));
  });

  it('keeps at most 8 sub-sitemaps in flight, as seen by the server', async () => {
    const children = Array.from({ length: 20 }, (_, index) => `/c${index}.xml`);
    const site = await serve((origin) => ({
      '/index.xml': { body: indexXml(children.map((path) => origin + path)) },
      ...Object.fromEntries(children.map((path) => [path, { delayMs: 80, body: urlsetXml([`${origin}${path}/page`]) }])),
    }));
    const urls = await collect(walkSitemap(site.url('/index.xml'), open));
    expect(urls).toHaveLength(20);
    expect(site.maxInFlight()).toBe(8);
  });

  it('keeps the first maxUrlsPerSitemap entries and reports too_many_urls', async () => {
    const site = await serve((origin) => ({ '/s.xml': { body: urlsetXml(pageUrls(origin, 30)) } }));
    const events = await allEvents(walkUrlEvents(site.url('/s.xml'), { ...open, maxUrlsPerSitemap: 25 }));
    expect(events.flatMap((event) => (event.type === 'batch' ? event.items : []))).toEqual(pageUrls(site.origin, 25));
    expect(events).toContainEqual(expect.objectContaining({ type: 'error', kind: 'too_many_urls', url: site.url('/s.xml') }));
  });

  it('stops at maxUrls', async () => {
    const site = await serve((origin) => ({ '/s.xml': { body: urlsetXml(pageUrls(origin, 2500)) } }));
    const urls = await collect(walkSitemap(site.url('/s.xml'), { ...open, maxUrls: 1234 }));
    expect(urls).toEqual(pageUrls(site.origin, 1234));
  });

  it('does not follow children past maxDepth and reports too_deep', async () => {
    const site = await serve((origin) => ({
      '/0.xml': { body: indexXml([`${origin}/1.xml`]) },
      '/1.xml': { body: indexXml([`${origin}/2.xml`]) },
      '/2.xml': { body: urlsetXml(pageUrls(origin, 1)) },
    }));
    const events = await allEvents(walkUrlEvents(site.url('/0.xml'), { ...open, maxDepth: 1 }));
    expect(site.hits('/2.xml')).toBe(0);
    expect(events).toContainEqual(expect.objectContaining({ type: 'error', kind: 'too_deep', url: site.url('/1.xml') }));
  });
});

describe('hreflang alternates', () => {
  it('adds alternates as page URLs, each once per sitemap, deduped against locs', async () => {
    const site = await serve((origin) => {
      const cluster = ['en', 'de', 'fr'].map((lang) => `${origin}/${lang}/page`);
      const links = cluster.map((href, index) => `<xhtml:link rel="alternate" hreflang="${['en', 'de', 'fr'][index]}" href="${href}"/>`).join('');
      const body = urlsetXml(cluster.slice(0, 2), () => links).replace('<urlset ', '<urlset xmlns:xhtml="http://www.w3.org/1999/xhtml" ');
      return { '/s.xml': { body } };
    });
    const urls = await collect(walkSitemap(site.url('/s.xml'), open));
    expect(urls).toEqual(['en', 'de', 'fr'].map((lang) => `${site.origin}/${lang}/page`));
    const entries = await collect(walkSitemapEntries(site.url('/s.xml'), open));
    expect(entries.map((entry) => entry.alternates.length)).toEqual([3, 3]);
  });
});
