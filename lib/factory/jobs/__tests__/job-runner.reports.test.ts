// A job keeps each sitemap's report (its place, figures and findings) in its store, atomically with the sitemap's
// finish: on the memory store and on Redis alike, once per sitemap however many slices and retries it took.
import { describe, expect, it } from 'vitest';
import { createJob } from '../create-job.js';
import { LOOPBACK, QUICK, runToEnd, useJobStores } from './job-fixtures.js';
import { indexOf, startSite, urlsetOf } from './small-sites.js';

const XML = { 'content-type': 'application/xml' };
const stores = useJobStores();

describe.each(stores)('sitemap reports on the %s store', (_name, open) => {
  it('one report a sitemap read, with where it sits, what it gave and what its read shows; none for a failed one', async () => {
    const site = await startSite((o) => ({
      '/robots.txt': { body: `Sitemap: ${o}/index.xml\n` },
      '/index.xml': { headers: XML, body: indexOf(o, ['/a.xml', '/old-ns.xml', '/gone.xml']) },
      '/a.xml': { headers: XML, body: urlsetOf(o, 'a', 1_200) },
      '/old-ns.xml': {
        headers: { 'content-type': 'text/html' },
        body: `<urlset xmlns="http://www.google.com/schemas/sitemap/0.9"><url><loc>${o}/x</loc></url></urlset>`,
      },
    }));
    const store = await open();
    try {
      const { jobId } = await createJob(store, { rootUrl: site.url('/'), options: LOOPBACK });
      await runToEnd(store, jobId, { ...LOOPBACK, ...QUICK, budgetMs: 5_000 });
      const reports = (await store.readReports(jobId)).sort((a, b) => a.url.localeCompare(b.url));
      expect(reports.map((r) => [r.url.replace(site.origin, ''), r.parent?.replace(site.origin, '') ?? null, r.depth, r.kind, r.urls, r.children])).toEqual([
        ['/a.xml', '/index.xml', 1, 'urlset', 1_200, 0],
        ['/index.xml', null, 0, 'sitemapindex', 0, 3],
        ['/old-ns.xml', '/index.xml', 1, 'urlset', 1, 0],
      ]);
      expect(reports[0]?.findings).toEqual([]);
      expect(reports[2]?.findings.map((f) => [f.rule, f.severity])).toEqual([
        ['namespace', 'error'],
        ['content_type', 'notice'],
      ]);
      expect(reports[0]?.bytes).toBeGreaterThan(1_200 * 30);
    } finally {
      await store.close();
      await site.close();
    }
  });
});
