import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoopbackServer, routeTable, type CannedResponse, type LoopbackServer } from '../../lib/demo/loopback-server.js';
import { indexXml, pageUrls, urlsetXml } from '../../test/helpers/sitemap-xml.js';
import { ndjson, runCli } from '../../test/helpers/run-cli.js';

let site: LoopbackServer;
beforeAll(async () => {
  let routes: Record<string, CannedResponse> = {};
  site = await startLoopbackServer((request, response) => routeTable(routes)(request, response));
  const toFtp = { status: 302, headers: { location: 'ftp://127.0.0.1/sitemap.xml' }, body: '' };
  routes = {
    '/ftp.xml': toFtp,
    '/index.xml': { body: indexXml([`${site.origin}/a.xml`, `${site.origin}/ftp.xml`, `${site.origin}/file.xml`]) },
    '/file.xml': { status: 301, headers: { location: 'file:///etc/passwd' }, body: '' },
    '/a.xml': { body: urlsetXml(pageUrls(site.origin, 20)) },
  };
});
afterAll(async () => site.close());

describe('a redirect to a non-http(s) scheme during a walk', () => {
  it('is a reported error of each child it hits, and the walk goes on (exit 0)', async () => {
    const run = await runCli(['walk', site.url('/index.xml'), '--allow-private', '--ndjson']);
    expect(run.code).toBe(0);
    const errors = ndjson(run.stdout).filter((event) => event.type === 'error');
    expect(errors.map((event) => event.url).sort()).toEqual([site.url('/file.xml'), site.url('/ftp.xml')]);
    for (const error of errors) expect(['invalid_url', 'blocked_ssrf']).toContain(error.kind);
    expect(ndjson(run.stdout).filter((event) => event.type === 'url')).toHaveLength(20);
  });

  it('fails the walk with exit 1, not a usage error, when it is the root', async () => {
    const run = await runCli(['walk', site.url('/ftp.xml'), '--allow-private', '--ndjson']);
    expect(run.code).toBe(1);
    expect(ndjson(run.stdout)[0]).toMatchObject({ type: 'error', fatal: true, url: site.url('/ftp.xml') });
  });

  it('leaves a non-http(s) argument a usage error (exit 2)', async () => {
    expect((await runCli(['walk', 'ftp://127.0.0.1/sitemap.xml'])).code).toBe(2);
  });
});
