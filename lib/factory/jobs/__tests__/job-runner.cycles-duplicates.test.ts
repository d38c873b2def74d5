// Sitemaps met again are counted, never skipped silently: duplicate children (listed twice, listed by another index,
// a URL variant of an ancestor) in the walk's `sitemap` events and the job's status, cycles in both too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRedis, type TestRedis } from '../../../../test/helpers/redis-server.js';
import type { LoopbackServer } from '../../../demo/loopback-server.js';
import type { JobStore } from '../../../store/job-store.js';
import { MemoryJobStore } from '../../../store/memory-job-store.js';
import { connectRedisJobStore } from '../../../store/open-job-store.js';
import { walkUrlEvents } from '../../sitemap.js';
import { createJob } from '../create-job.js';
import { LOOPBACK, QUICK, runToEnd } from './job-fixtures.js';
import { indexOf, startSite, urlsetOf } from './small-sites.js';

let redis: TestRedis;
let server: LoopbackServer;

beforeAll(async () => {
  redis = await startTestRedis();
  server = await startSite((origin) => {
    const variant = origin.replace('http://127.0.0.1', 'HTTP://127.0.0.1');
    return {
      // a.xml twice, and the root itself in another spelling: two duplicates.
      '/root.xml': {
        body: indexOf(origin, ['/a.xml', '/b.xml', '/r.xml', '/a.xml']).replace(
          '</sitemapindex>',
          `<sitemap><loc>${variant}/root.xml</loc></sitemap></sitemapindex>`,
        ),
      },
      // a.xml again (the root listed it): one duplicate.
      '/b.xml': { body: indexOf(origin, ['/a.xml', '/p.xml']) },
      // Read after b.xml queued p.xml: a redirect into a sitemap already visited, a cycle.
      '/r.xml': { status: 301, headers: { location: `${origin}/p.xml` }, body: '' },
      '/a.xml': { body: urlsetOf(origin, 'a', 3) },
      '/p.xml': { body: urlsetOf(origin, 'p', 2) },
    };
  });
});

afterAll(async () => {
  await server?.close();
  await redis?.stop();
});

const options = { ...LOOPBACK, concurrency: 1 };

describe('sitemaps met again', () => {
  it('are counted per index in the walk, with the cycle as an event', async () => {
    const duplicates = new Map<string, number>();
    const cycles = [];
    for await (const event of walkUrlEvents(server.url('/root.xml'), options)) {
      if (event.type === 'sitemap') duplicates.set(new URL(event.url).pathname, event.duplicates);
      if (event.type === 'cycle') cycles.push({ url: event.url, target: event.target });
    }
    expect(Object.fromEntries(duplicates)).toEqual({ '/root.xml': 2, '/a.xml': 0, '/b.xml': 1, '/p.xml': 0 });
    expect(cycles).toEqual([{ url: server.url('/r.xml'), target: server.url('/p.xml') }]);
  });

  it.each(['memory', 'redis'])('are counted in the status of a job on the %s store, with the cycle', async (name) => {
    const store: JobStore = name === 'memory' ? new MemoryJobStore() : await connectRedisJobStore(redis.url);
    try {
      const { jobId } = await createJob(store, { sitemapUrls: [server.url('/root.xml')], options });
      const { status } = await runToEnd(store, jobId, { ...LOOPBACK, ...QUICK, budgetMs: 5_000 });
      expect(status).toMatchObject({ state: 'done', urlsFound: 5, duplicates: 3, cycleCount: 1, errors: [] });
      expect(status.cycles).toEqual([{ url: server.url('/r.xml'), target: server.url('/p.xml') }]);
    } finally {
      await store.close();
    }
  });
});
