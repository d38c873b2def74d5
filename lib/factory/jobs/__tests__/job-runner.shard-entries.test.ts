import { afterAll, describe, expect, it } from 'vitest';
import { urlsetXml, XML } from '../../../../test/helpers/sitemap-xml.js';
import type { LoopbackServer } from '../../../demo/loopback-server.js';
import { MemoryJobStore } from '../../../store/memory-job-store.js';
import { createJob } from '../create-job.js';
import { readJobShard, readJobShardEntries } from '../job-control.js';
import { LOOPBACK, QUICK, runToEnd } from './job-fixtures.js';
import { startSite } from './small-sites.js';

const servers: LoopbackServer[] = [];
afterAll(async () => Promise.all(servers.map((server) => server.close())));

describe('job shards keep what the sitemap says of each URL', () => {
  it('stores lastmod, changefreq, priority, the source sitemap and each URL locale; alternates inherit their loc and /shard keeps URLs only', async () => {
    const server = await startSite((origin) => ({
      '/sitemap.xml': {
        body: urlsetXml([`${origin}/a`, `${origin}/b`], (_loc, i) =>
          i === 0
            ? `<lastmod>2026-03-04</lastmod><changefreq>weekly</changefreq><priority>0.8</priority><xhtml:link xmlns:xhtml="http://www.w3.org/1999/xhtml" rel="alternate" hreflang="de" href="${origin}/de/a"/>`
            : '',
        ),
        headers: XML,
      },
    }));
    servers.push(server);
    const store = new MemoryJobStore();
    const { jobId } = await createJob(store, { rootUrl: `${server.origin}/sitemap.xml`, options: LOOPBACK });
    await runToEnd(store, jobId, { ...LOOPBACK, ...QUICK, budgetMs: 5_000 });
    const source = `${server.origin}/sitemap.xml`;
    expect((await readJobShardEntries(store, jobId, 0))?.entries).toEqual([
      { url: `${server.origin}/a`, lastmod: '2026-03-04', changefreq: 'weekly', priority: 0.8, source, locale: null },
      { url: `${server.origin}/de/a`, lastmod: '2026-03-04', changefreq: 'weekly', priority: 0.8, source, locale: 'de' },
      { url: `${server.origin}/b`, lastmod: null, changefreq: null, priority: null, source, locale: null },
    ]);
    expect((await readJobShard(store, jobId, 0))?.urls).toEqual([`${server.origin}/a`, `${server.origin}/de/a`, `${server.origin}/b`]);
  });
});
