import { describe, expect, it } from 'vitest';
import { loadCorpusSites, serveCorpusSite, type CorpusSite } from '../../../test/helpers/corpus-server.js';
import { startDemoSite, type DemoSite } from '../../demo/demo-site.js';
import { walkUrlEvents } from '../sitemap.js';
import { indexOf, urlsetOf } from '../jobs/__tests__/small-sites.js';
import { LOOPBACK, robots, useOneEngine } from './one-engine-harness.js';

const { expectOneEngine, site, keep } = useOneEngine();

describe('one engine: the walk and a job (memory, redis, killed between slices) agree', () => {
  it('on the demo site', async () => {
    const demo: DemoSite = await startDemoSite({ scale: 0.05 });
    keep(demo);
    const outcome = await expectOneEngine({ rootUrl: demo.rootUrl });
    expect(outcome.urls.length).toBeGreaterThan(0);
  });

  it('when robots.txt lists only a dead sitemap while /sitemap.xml answers (both fall back)', async () => {
    const server = await site((origin) => ({ '/robots.txt': robots(origin, ['/dead.xml']), '/sitemap.xml': { body: urlsetOf(origin, 'p', 30) } }));
    const outcome = await expectOneEngine({ rootUrl: `${server.origin}/` });
    expect(outcome).toMatchObject({ failed: false, kinds: ['http_status'] });
    expect(outcome.urls).toHaveLength(30);
  });

  it('when robots.txt lists a dead sitemap and no well-known path answers (both fail)', async () => {
    const server = await site((origin) => ({ '/robots.txt': robots(origin, ['/dead.xml']) }));
    expect(await expectOneEngine({ rootUrl: `${server.origin}/` })).toMatchObject({ failed: true, urls: [] });
  });

  it('on a cycle through URL variants (case, default port, fragment)', async () => {
    const server = await site((origin) => {
      const variant = origin.replace('http://127.0.0.1', 'HTTP://127.0.0.1');
      return {
        '/a.xml': { body: indexOf(origin, ['/b.xml']) },
        '/b.xml': {
          body: `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>${variant}/a.xml#top</loc></sitemap><sitemap><loc>${origin}/p.xml</loc></sitemap></sitemapindex>`,
        },
        '/p.xml': { body: urlsetOf(origin, 'p', 5) },
      };
    });
    const outcome = await expectOneEngine({ sitemapUrls: [server.url('/a.xml')] });
    expect(outcome.urls).toHaveLength(5);
    // b.xml lists a variant of its ancestor a.xml: counted as a duplicate, not read again.
    expect(outcome.repeats).toBe(1);
  });

  it('on a child that redirects into a sitemap already read (read once, reported as a cycle by the walk)', async () => {
    const server = await site((origin) => ({
      '/index.xml': { body: indexOf(origin, ['/a.xml', '/r.xml']) },
      '/r.xml': { status: 301, headers: { location: `${origin}/a.xml` }, body: '' },
      '/a.xml': { body: urlsetOf(origin, 'a', 5) },
    }));
    expect((await expectOneEngine({ sitemapUrls: [server.url('/index.xml')] }, { concurrency: 1 })).urls).toHaveLength(5);
    const cycles = [];
    for await (const event of walkUrlEvents(server.url('/index.xml'), { ...LOOPBACK, concurrency: 1 })) if (event.type === 'cycle') cycles.push(event);
    expect(cycles).toEqual([{ type: 'cycle', url: server.url('/r.xml'), target: server.url('/a.xml'), parent: server.url('/index.xml'), depth: 1 }]);
  });

  it('on an empty index, a failing child and a limit hit mid-index', async () => {
    const children = Array.from({ length: 6 }, (_, i) => `/c${i}.xml`);
    const server = await site((origin) => ({
      '/empty.xml': { body: indexOf(origin, []) },
      '/index.xml': { body: indexOf(origin, [...children, '/gone.xml', '/empty.xml']) },
      ...Object.fromEntries(children.map((path, i) => [path, { body: urlsetOf(origin, `c${i}`, 3) }])),
    }));
    await expectOneEngine({ sitemapUrls: [server.url('/index.xml')] });
    const limited = await expectOneEngine({ sitemapUrls: [server.url('/index.xml')] }, { maxSitemaps: 4, concurrency: 1 });
    expect(limited.kinds).toContain('too_many_children');
  });

  it('on a failing root next to a good one, and on a sitemap longer than a slice', async () => {
    const server = await site((origin) => ({ '/big.xml': { body: urlsetOf(origin, 'big', 12_000), chunkDelayMs: 0 } }));
    const outcome = await expectOneEngine({ sitemapUrls: [server.url('/big.xml'), server.url('/missing.xml')] });
    expect(outcome).toMatchObject({ failed: false, kinds: ['http_status'] });
    expect(outcome.urls).toHaveLength(12_000);
  });
});

const corpus = await loadCorpusSites();

describe.skipIf(corpus === null)('one engine on every site of ../shared/corpus', () => {
  it.each((corpus ?? []).map((entry): [string, CorpusSite] => [entry.id, entry]))(
    '%s',
    async (_id, entry) => {
      const server = await serveCorpusSite(entry);
      keep(server);
      await expectOneEngine({ sitemapUrls: entry.roots.map((path) => server.url(`/${path}`)) });
    },
    60_000,
  ); // the 63,403-URL gz index runs three times
});
