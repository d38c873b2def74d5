// Site URLs given by a user: no written host (`http:///etc/passwd`, which WHATWG reads as host `etc`) and
// single-label names are `invalid_url` before any lookup, in the rule itself and through the library's walk.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoopbackServer, routeTable, type LoopbackServer } from '../../../demo/loopback-server.js';
import { isFactoryError } from '../../../core/errors.js';
import { discoverSitemaps, walkSitemap } from '../../sitemap.js';
import { parseHttpUrl, parseSiteUrl, printableUrl } from '../site-url.js';

const NO_POLICY = { allowHosts: [], resolve: [] };

function kindOf(run: () => unknown): string | null {
  try {
    run();
    return null;
  } catch (error) {
    return isFactoryError(error) ? error.kind : 'not a FactoryError';
  }
}

describe('parseSiteUrl', () => {
  it.each(['http:///etc/passwd', 'https:///x.xml', 'http:/example.com/', 'http:example.com/', 'http:\\\\example.com/', 'HTTP:///etc', 'ftp://example.com/'])(
    'refuses %j as invalid_url',
    (raw) => {
      expect(kindOf(() => parseSiteUrl(raw, NO_POLICY))).toBe('invalid_url');
      expect(kindOf(() => parseHttpUrl(raw))).toBe('invalid_url');
    },
  );

  it.each(['http://intranet/', 'https://etc/sitemap.xml', 'http://etc./', 'http://corp:8080/x.xml'])('refuses the single-label host of %j', (raw) => {
    expect(kindOf(() => parseSiteUrl(raw, NO_POLICY))).toBe('invalid_url');
    // Only the host rule needs the policy: the plain parse lets it through.
    expect(parseHttpUrl(raw).protocol).toBe(raw.slice(0, raw.indexOf(':') + 1));
  });

  it.each([
    'https://example.com/',
    ' https://www.example.com/sitemap.xml ',
    'http://localhost:8080/',
    'http://LOCALHOST./x.xml',
    'http://127.0.0.1:3000/',
    'http://2130706433/',
    'http://[::1]:8080/',
    'http://user@example.com/',
  ])('keeps %j (public names, localhost and IP literals go to the SSRF guard)', (raw) => {
    expect(parseSiteUrl(raw, NO_POLICY).href).toBe(new URL(raw.trim()).href);
  });

  it('keeps a single-label name the user opened with allowHosts or pinned with resolve, on any port', () => {
    expect(parseSiteUrl('http://intranet:8080/', { allowHosts: ['Intranet'], resolve: [] }).hostname).toBe('intranet');
    expect(parseSiteUrl('http://intranet/', { allowHosts: ['intranet:8080'], resolve: [] }).hostname).toBe('intranet');
    expect(parseSiteUrl('http://intranet/', { allowHosts: [], resolve: [{ host: 'intranet', port: 80, address: '10.0.0.1' }] }).hostname).toBe('intranet');
    expect(kindOf(() => parseSiteUrl('http://intranet/', { allowHosts: ['other'], resolve: [] }))).toBe('invalid_url');
  });

  it('never quotes control characters of the input in its message', () => {
    try {
      parseHttpUrl('http://exa mple.com/\u0000\u001b[31m');
      expect.unreachable();
    } catch (error) {
      expect(error instanceof Error ? error.message : '').not.toMatch(/[\u0000-\u001f]/);
    }
    expect(printableUrl('a\nb\u007f')).toBe('a\\x0ab\\x7f');
  });
});

describe('the library refuses such URLs before any request', () => {
  let server: LoopbackServer;
  beforeAll(async () => {
    server = await startLoopbackServer(routeTable({ '/x.xml': { body: '<urlset><url><loc>http://a.example/1</loc></url></urlset>' } }));
  });
  afterAll(() => server.close());

  it('walkSitemap and discoverSitemaps: the pinned name reached through a missing authority is never asked', async () => {
    // `http:///etc:PORT/x.xml` parses as host `etc`, which the policy pins to the server: only the raw text tells.
    const net = { allowPrivate: true, resolve: [{ host: 'etc', port: server.port, address: '127.0.0.1' }] };
    const sitemap = `http:///etc:${server.port}/x.xml`;
    await expect(walkSitemap(sitemap, { net }).next()).rejects.toMatchObject({ kind: 'invalid_url' });
    await expect(discoverSitemaps(`http:///etc:${server.port}/`, { net })).rejects.toMatchObject({ kind: 'invalid_url' });
    // The same tree with its host written is read: the refusal is the missing authority, not the pin.
    const urls: string[] = [];
    for await (const batch of walkSitemap(`http://etc:${server.port}/x.xml`, { net })) urls.push(...batch);
    expect(urls).toEqual(['http://a.example/1']);
    expect(server.hits('/x.xml')).toBe(1);
  });

  it('walkSitemap refuses a single-label host unless the policy names it', async () => {
    await expect(walkSitemap(`http://etc:${server.port}/x.xml`, { net: { allowPrivate: true } }).next()).rejects.toMatchObject({ kind: 'invalid_url' });
    await expect(discoverSitemaps('http://intranet/')).rejects.toMatchObject({ kind: 'invalid_url' });
  });
});
