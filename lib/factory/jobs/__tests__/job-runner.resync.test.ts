import { describe, expect, it } from 'vitest';
import { startLoopbackServer, type LoopbackServer } from '../../../demo/loopback-server.js';
import { newJobId } from '../../../store/job-id.js';
import type { JobStore } from '../../../store/job-store.js';
import { createJob } from '../create-job.js';
import { allShardUrls, LOOPBACK, QUICK, runToEnd, useJobStores } from './job-fixtures.js';
import { pagesOf, urlsetOf } from './small-sites.js';

const XML = { 'content-type': 'application/xml' };

/** An index of three leaves listed with a lastmod each; `version` changes leaf b's content and lastmod, `etag` answers 304s. */
async function changingSite(state: { version: number }): Promise<LoopbackServer> {
  const server: LoopbackServer = await startLoopbackServer((request) => {
    const path = request.url ?? '/';
    const origin = server.origin;
    if (path === '/index.xml') {
      const child = (name: string, lastmod: string | null) =>
        `<sitemap><loc>${origin}/${name}.xml</loc>${lastmod ? `<lastmod>${lastmod}</lastmod>` : ''}</sitemap>`;
      const items = [child('a', '2026-01-01'), child('b', `2026-01-0${state.version}`), child('c', null)].join('');
      return { headers: XML, body: `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${items}</sitemapindex>` };
    }
    if (path === '/a.xml') return { headers: XML, body: urlsetOf(origin, 'a', 3) };
    if (path === '/b.xml') return { headers: XML, body: urlsetOf(origin, `b${state.version}`, 3) };
    if (path === '/c.xml') {
      if (request.headers['if-none-match'] === '"c1"') return { status: 304, headers: { etag: '"c1"' } };
      return { headers: { ...XML, etag: '"c1"' }, body: urlsetOf(origin, 'c', 3) };
    }
    return null;
  });
  return server;
}

const stores = useJobStores();

const RUN = { ...LOOPBACK, ...QUICK, budgetMs: 5_000 };

/** What a first job leaves for the tests: the site (version 1, changeable), the store and the finished job's id. */
interface FirstRun {
  state: { version: number };
  site: LoopbackServer;
  store: JobStore;
  firstJobId: string;
}

/** Runs a first job on a fresh site and store to its end, then `body`; closes both whatever happens. */
async function afterFirstRun(open: () => Promise<JobStore>, body: (run: FirstRun) => Promise<void>): Promise<void> {
  const state = { version: 1 };
  const site = await changingSite(state);
  const store = await open();
  try {
    const first = await createJob(store, { rootUrl: site.url('/index.xml'), options: LOOPBACK });
    await runToEnd(store, first.jobId, RUN);
    await body({ state, site, store, firstJobId: first.jobId });
  } finally {
    await store.close();
    await site.close();
  }
}

describe.each(stores)('a job re-synced from a previous job (%s store)', (_name, open) => {
  it('reads only changed sitemaps, records the others unchanged, and keeps validators for the next job', () =>
    afterFirstRun(open, async ({ state, site, store, firstJobId }) => {
      expect((await allShardUrls(store, firstJobId)).sort()).toEqual(
        [...pagesOf(site.origin, 'a', 3), ...pagesOf(site.origin, 'b1', 3), ...pagesOf(site.origin, 'c', 3)].sort(),
      );
      expect(Object.keys((await store.readResync(firstJobId)).validators)).toHaveLength(3);

      state.version = 2;
      const second = await createJob(store, { rootUrl: site.url('/index.xml'), options: LOOPBACK, previousJobId: firstJobId });
      const { status } = await runToEnd(store, second.jobId, RUN);
      expect(status).toMatchObject({ state: 'done', sitemapsDone: 4, errors: [] });
      expect((await allShardUrls(store, second.jobId)).sort()).toEqual(pagesOf(site.origin, 'b2', 3));
      expect(site.hits('/a.xml')).toBe(1);
      expect(site.hits('/c.xml')).toBe(2);
      const resync = await store.readResync(second.jobId);
      expect(resync.unchanged.sort()).toEqual([site.url('/a.xml'), site.url('/c.xml')]);
      expect(Object.keys(resync.validators)).toHaveLength(3);

      // A third job chained on the second skips what the second found unchanged, too.
      const third = await createJob(store, { rootUrl: site.url('/index.xml'), options: LOOPBACK, previousJobId: second.jobId });
      await runToEnd(store, third.jobId, RUN);
      expect(site.hits('/a.xml')).toBe(1);
      expect(site.hits('/b.xml')).toBe(2);
      expect(await allShardUrls(store, third.jobId)).toEqual([]);
    }));

  it('takes the previous validators inline (as the inventory gives them) just as from a previous job', () =>
    afterFirstRun(open, async ({ state, site, store, firstJobId }) => {
      const { validators } = await store.readResync(firstJobId);
      state.version = 2;
      const second = await createJob(store, { rootUrl: site.url('/index.xml'), options: LOOPBACK, previous: validators });
      await runToEnd(store, second.jobId, RUN);
      expect((await allShardUrls(store, second.jobId)).sort()).toEqual(pagesOf(site.origin, 'b2', 3));
      expect((await store.getMeta(second.jobId)).previousSitemaps).toBe(3);
      await expect(
        createJob(store, { rootUrl: site.url('/index.xml'), options: LOOPBACK, previous: validators, previousJobId: firstJobId }),
      ).rejects.toMatchObject({ kind: 'bad_request' });
    }));

  it('refuses an unknown previous job at creation (not_found)', async () => {
    const store = await open();
    try {
      await expect(createJob(store, { rootUrl: 'http://127.0.0.1:9/index.xml', options: LOOPBACK, previousJobId: newJobId() })).rejects.toMatchObject({
        kind: 'not_found',
      });
    } finally {
      await store.close();
    }
  });
});
