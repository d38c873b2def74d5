import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoopbackServer, type LoopbackServer } from '../../lib/demo/loopback-server.js';
import { startTestRedis, type TestRedis } from '../../test/helpers/redis-server.js';
import { pageUrls, urlsetXml, XML } from '../../test/helpers/sitemap-xml.js';
import { runMain } from '../../test/helpers/run-cli.js';

let redis: TestRedis;
let site: LoopbackServer;

beforeAll(async () => {
  redis = await startTestRedis();
  site = await startLoopbackServer((request) => {
    const path = request.url ?? '/';
    if (path === '/index.xml') {
      const child = (name: string) => `<sitemap><loc>${site.origin}/${name}.xml</loc><lastmod>2026-01-01</lastmod></sitemap>`;
      return {
        headers: XML,
        body: `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${child('a')}${child('b')}</sitemapindex>`,
      };
    }
    if (path === '/a.xml' || path === '/b.xml') return { headers: XML, body: urlsetXml(pageUrls(site.origin, 2, path.slice(1, 2))) };
    return null;
  });
});
afterAll(async () => {
  await site?.close();
  await redis?.stop();
});

describe('crawler-factory job run --previous', () => {
  it('re-syncs from a previous job on Redis: unchanged children are not fetched again', async () => {
    const args = ['job', 'run', site.url('/index.xml'), '--store', redis.url, '--allow-private'];
    const first = await runMain(args);
    expect(first.code).toBe(0);
    const { jobId, urlsFound } = JSON.parse(first.stdout) as { jobId: string; urlsFound: number };
    expect(urlsFound).toBe(4);
    const second = await runMain([...args, '--previous', jobId]);
    expect(second.code).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ state: 'done', urlsFound: 0, sitemapsDone: 3 });
    expect(site.hits('/a.xml')).toBe(1);
  });

  it('refuses a malformed previous job id as a usage error', async () => {
    const run = await runMain(['job', 'run', site.url('/index.xml'), '--store', 'memory', '--previous', 'nope']);
    expect(run.code).toBe(2);
  });
});
