import { afterEach, describe, expect, it } from 'vitest';
import { startLoopbackServer, type LoopbackServer } from '../../../demo/loopback-server.js';
import { DEFAULT_LIMITS } from '../../../core/limits.js';
import { createUrlMapper, walkSitemap, walkUrlEvents } from '../../sitemap.js';
import { readSitemap } from '../sitemap-reader.js';
import { resolveWalkOptions } from '../../../core/limits.js';
import { collect, pageUrls, urlsetXml } from '../../../../test/helpers/sitemap-xml.js';

const READ_ATTEMPTS = DEFAULT_LIMITS.retries + 1;

const open = { net: { allowPrivate: true } };
let server: LoopbackServer | null = null;
afterEach(async () => server?.close());

/** A server whose first answer is 60% of `document(origin)`, then a cut socket; later answers are whole. */
async function startCutOnce(document: (origin: string) => string): Promise<LoopbackServer & { served: () => number }> {
  let body = '';
  let served = 0;
  const site = await startLoopbackServer((_request, response) => {
    served += 1;
    if (served > 1) return { body };
    response.writeHead(200, { 'content-type': 'application/xml' });
    response.write(body.slice(0, Math.floor(body.length * 0.6)));
    setTimeout(() => response.socket?.destroy(), 50);
    return 'handled';
  });
  body = document(site.origin);
  return Object.assign(site, { served: () => served });
}

describe('transient failures are retried from the last URL handed out', () => {
  it('a connection dropped mid-body loses and repeats nothing', async () => {
    const site = await startCutOnce((origin) => urlsetXml(pageUrls(origin, 5000)));
    server = site;
    const urls = await collect(walkSitemap(site.url('/s.xml'), open));
    expect(urls).toEqual(pageUrls(site.origin, 5000));
    expect(site.served()).toBe(2);
  });

  it('the mapper of each attempt is released once its read ends, failed or not', async () => {
    let served = 0;
    server = await startLoopbackServer(() => (++served === 1 ? { status: 503, body: 'busy' } : { body: urlsetXml(pageUrls('https://e.com', 3)) }));
    let released = 0;
    const createMapper = () => {
      const mapper = createUrlMapper();
      const release = mapper.release;
      return Object.assign(mapper, { release: () => ((released += 1), release()) });
    };
    const reader = readSitemap({ url: server.url('/s.xml'), depth: 0, parent: null }, resolveWalkOptions(open), { skip: 0, batchSize: 10, createMapper });
    const items = [];
    for await (const event of reader) if (event.type === 'items') items.push(...event.items);
    expect(items).toEqual(pageUrls('https://e.com', 3));
    expect(released).toBe(2);
  });

  it('a retry that resumes inside the URLs of one entry (a loc and its alternates) loses and repeats nothing', async () => {
    // Three URLs an entry and batches of 250: the offset a retry resumes at falls inside an entry's URLs.
    const entry = (loc: string) =>
      `<url><loc>${loc}</loc>${['de', 'fr'].map((lang) => `<xhtml:link rel="alternate" hreflang="${lang}" href="${loc}?hl=${lang}"/>`).join('')}</url>`;
    const document = (origin: string) =>
      `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">${pageUrls(origin, 3000).map(entry).join('\n')}</urlset>`;
    const site = await startCutOnce(document);
    server = site;
    const pages = pageUrls(site.origin, 3000);
    const batches: string[][] = [];
    for await (const batch of walkSitemap(site.url('/s.xml'), open)) batches.push(batch);
    expect(batches.flat()).toEqual(pages.flatMap((loc) => [loc, `${loc}?hl=de`, `${loc}?hl=fr`]));
    expect(Math.max(...batches.map((batch) => batch.length))).toBeLessThanOrEqual(1000);
    expect(site.served()).toBe(2);
  });

  it('a 503 followed by a 200 is read once, completely', async () => {
    let served = 0;
    server = await startLoopbackServer(() => (++served === 1 ? { status: 503, body: 'busy' } : { body: urlsetXml(pageUrls('https://e.com', 3)) }));
    expect(await collect(walkSitemap(server.url('/s.xml'), open))).toEqual(pageUrls('https://e.com', 3));
  });

  it('gives up on a lasting 503 after READ_ATTEMPTS and reports it; a 404 is not retried', async () => {
    server = await startLoopbackServer((request) =>
      request.url === '/index.xml'
        ? {
            body: `<sitemapindex><sitemap><loc>${server?.url('/down.xml')}</loc></sitemap><sitemap><loc>${server?.url('/gone.xml')}</loc></sitemap></sitemapindex>`,
          }
        : request.url === '/down.xml'
          ? { status: 503, body: 'overloaded' }
          : null,
    );
    const events = [];
    for await (const event of walkUrlEvents(server.url('/index.xml'), open)) events.push(event);
    expect(events.filter((event) => event.type === 'error').map((event) => 'kind' in event && event.kind)).toEqual(['http_status', 'http_status']);
    expect(server.hits('/down.xml')).toBe(READ_ATTEMPTS);
    expect(server.hits('/gone.xml')).toBe(1);
  });
});

describe('failures name the sitemap that failed', () => {
  it('a connect-time refusal reports the child URL with its path, not just its origin', async () => {
    server = await startLoopbackServer(() => ({
      body: '<sitemapindex><sitemap><loc>http://localhost:4000/a.xml</loc></sitemap><sitemap><loc>http://localhost:4000/b.xml</loc></sitemap></sitemapindex>',
    }));
    const errors = [];
    for await (const event of walkUrlEvents(server.url('/index.xml'), { net: { allowHosts: [new URL(server.origin).host] } })) {
      if (event.type === 'error') errors.push([event.kind, event.url]);
    }
    expect(errors.sort()).toEqual([
      ['blocked_ssrf', 'http://localhost:4000/a.xml'],
      ['blocked_ssrf', 'http://localhost:4000/b.xml'],
    ]);
  });
});

describe('a sitemap cut off before its end', () => {
  it('keeps the entries read and reports invalid_xml for it', async () => {
    const whole = urlsetXml(pageUrls('https://e.com', 10));
    const cut = whole.slice(0, whole.indexOf('<url><loc>https://e.com/p/7'));
    server = await startLoopbackServer(() => ({ body: cut }));
    const events = [];
    for await (const event of walkUrlEvents(server.url('/s.xml'), open)) events.push(event);
    expect(events.flatMap((event) => (event.type === 'batch' ? event.items : []))).toEqual(pageUrls('https://e.com', 7));
    expect(events).toContainEqual(expect.objectContaining({ type: 'error', kind: 'invalid_xml', url: server.url('/s.xml') }));
  });
});
