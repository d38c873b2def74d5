import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoopbackServer, routeTable, type CannedResponse, type LoopbackServer } from '../../lib/demo/loopback-server.js';
import { indexXml, pageUrls, urlsetXml } from '../../test/helpers/sitemap-xml.js';
import { ndjson, runMain } from '../../test/helpers/run-cli.js';

let site: LoopbackServer;
beforeAll(async () => {
  let routes: Record<string, CannedResponse> = {};
  site = await startLoopbackServer((request, response) => routeTable(routes)(request, response));
  routes = {
    '/robots.txt': { body: 'User-agent: *\nSitemap: /index.xml\n' },
    '/index.xml': { body: indexXml([`${site.origin}/a.xml`, `${site.origin}/gone.xml`]) },
    '/a.xml': { body: urlsetXml(pageUrls(site.origin, 1500)) },
  };
});
afterAll(async () => site.close());

describe('crawler-factory walk', () => {
  it('prints page URLs one a line, discovering from a site root; a failing child is reported, exit 0', async () => {
    const run = await runMain(['walk', `${site.origin}/`, '--allow-private']);
    expect(run.code).toBe(0);
    expect(run.stdout.trim().split('\n')).toEqual(pageUrls(site.origin, 1500));
    expect(run.stderr).toContain('http_status');
  });

  it('emits NDJSON url, sitemap, error events and a summary last', async () => {
    const run = await runMain(['walk', site.url('/index.xml'), '--allow-private', '--ndjson']);
    const events = ndjson(run.stdout);
    expect(run.code).toBe(0);
    expect(events.filter((event) => event.type === 'url')).toHaveLength(1500);
    expect(events.find((event) => event.type === 'url')).toMatchObject({ loc: `${site.origin}/p/0`, depth: 1, source: site.url('/a.xml') });
    expect(events.filter((event) => event.type === 'sitemap').map((event) => event.url)).toEqual(
      expect.arrayContaining([site.url('/index.xml'), site.url('/a.xml')]),
    );
    expect(events.filter((event) => event.type === 'error')).toEqual([expect.objectContaining({ kind: 'http_status', url: site.url('/gone.xml') })]);
    expect(events.at(-1)).toMatchObject({ type: 'summary', urls: 1500, errors: 1 });
  });

  it('exits 1 with an NDJSON error line first when the root fails', async () => {
    const run = await runMain(['walk', site.url('/missing.xml'), '--allow-private', '--ndjson']);
    expect(run.code).toBe(1);
    expect(ndjson(run.stdout)[0]).toMatchObject({ type: 'error', kind: 'http_status', url: site.url('/missing.xml') });
  });

  it('refuses loopback targets unless allowed: exit 1, blocked_ssrf', async () => {
    const run = await runMain(['walk', site.url('/a.xml')]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('blocked_ssrf');
  });

  it('opens exactly one host with --allow-host, or maps a name with --resolve', async () => {
    const allowed = await runMain(['walk', site.url('/a.xml'), '--allow-host', `127.0.0.1:${site.port}`, '--max-urls', '3']);
    expect(allowed.stdout.trim().split('\n')).toEqual(pageUrls(site.origin, 3));
    const resolved = await runMain([
      'walk',
      `http://sitemaps.test:${site.port}/a.xml`,
      '--resolve',
      `sitemaps.test:${site.port}:127.0.0.1`,
      '--allow-host',
      `sitemaps.test:${site.port}`,
      '--max-urls',
      '2',
    ]);
    expect(resolved.code).toBe(0);
    expect(resolved.stdout.trim().split('\n')).toHaveLength(2);
  });
});

describe('crawler-factory usage', () => {
  it.each([[['walk']], [['walk', 'ftp://x/']], [['bogus']], [['walk', 'http://x/', '--concurrency', 'many']], [['walk', 'http://x/', '--nope']]])(
    'exits 2 on a usage error: %j',
    async (args) => {
      const run = await runMain(args);
      expect(run.code).toBe(2);
      expect(run.stderr.length).toBeGreaterThan(0);
    },
  );

  it('prints help with exit 0', async () => {
    const run = await runMain(['--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('walk [options] <input...>');
  });
});

describe('crawler-factory discover', () => {
  it('prints the sitemap URLs of a site', async () => {
    const run = await runMain(['discover', site.origin, '--allow-private']);
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe(site.url('/index.xml'));
  });

  it('emits NDJSON with a summary', async () => {
    const run = await runMain(['discover', site.origin, '--allow-private', '--ndjson']);
    expect(ndjson(run.stdout)).toEqual([
      { type: 'sitemap', url: site.url('/index.xml'), depth: 0, source: 'robots' },
      { type: 'summary', sitemaps: 1, source: 'robots', canonicalRoot: null, requests: 1 },
    ]);
  });
});
