import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeTable, startLoopbackServer, type LoopbackServer } from '../../../demo/loopback-server.js';
import { MemoryJobStore } from '../../../store/memory-job-store.js';
import { collect, indexXml, urlsetXml } from '../../../../test/helpers/sitemap-xml.js';
import { allShardUrls, LOOPBACK, QUICK, runToEnd } from '../../jobs/__tests__/job-fixtures.js';
import { createJob } from '../../jobs/index.js';
import { walkSitemap, walkSitemapEntries } from '../../sitemap.js';

// Two children: docs in two locales with lastmods, a blog with an hreflang alternate into /fr/.
let site: LoopbackServer;
beforeAll(async () => {
  site = await startLoopbackServer((request, response) => routeTable(routes())(request, response));
});
afterAll(async () => site.close());

function routes() {
  const o = site.origin;
  return {
    '/index.xml': { body: indexXml([`${o}/docs.xml`, `${o}/blog.xml`]) },
    '/docs.xml': {
      body: urlsetXml([`${o}/en-us/docs/a`, `${o}/de-de/docs/b`, `${o}/docs/c`, 'https://elsewhere.test/docs/d'], (_loc, index) =>
        index === 0 ? '<lastmod>2023-05-01</lastmod>' : index === 1 ? '<lastmod>2024-05-01</lastmod>' : '',
      ),
    },
    '/blog.xml': {
      body: urlsetXml([`${o}/blog/hello`], () => `<xhtml:link rel="alternate" hreflang="fr" href="${o}/fr/blog/bonjour"/>`).replace(
        '<urlset ',
        '<urlset xmlns:xhtml="http://www.w3.org/1999/xhtml" ',
      ),
    },
  };
}

describe('filters while walking (library option `filter`)', () => {
  it('keeps a path prefix, looking through locale folders, with a since date', async () => {
    const urls = await collect(walkSitemap(site.url('/index.xml'), { ...LOOPBACK, filter: { pathPrefixes: ['/docs/'], since: '2024-01-01' } }));
    expect(urls.sort()).toEqual([`${site.origin}/de-de/docs/b`, `${site.origin}/docs/c`, 'https://elsewhere.test/docs/d'].sort());
  });

  it('judges an hreflang alternate by its own locale, and scope host drops other hosts', async () => {
    const french = await collect(walkSitemap(site.url('/index.xml'), { ...LOOPBACK, filter: { locales: ['fr'] } }));
    expect(french).toEqual([`${site.origin}/fr/blog/bonjour`]);
    const entries = await collect(walkSitemapEntries(site.url('/docs.xml'), { ...LOOPBACK, filter: { scope: 'host', exclude: ['/de-de/**'] } }));
    expect(entries.map((entry) => entry.loc)).toEqual([`${site.origin}/en-us/docs/a`, `${site.origin}/docs/c`]);
  });

  it('applies the same filter to a job (options.filter), scoped to the job root', async () => {
    const store = new MemoryJobStore();
    const job = await createJob(store, {
      rootUrl: site.url('/index.xml'),
      options: { ...LOOPBACK, filter: { include: ['/docs/**', '/*/docs/**'], scope: 'host' } },
    });
    await runToEnd(store, job.jobId, { budgetMs: 5_000, ...QUICK, ...LOOPBACK });
    expect((await allShardUrls(store, job.jobId)).sort()).toEqual([`${site.origin}/de-de/docs/b`, `${site.origin}/docs/c`, `${site.origin}/en-us/docs/a`]);
  });
});
