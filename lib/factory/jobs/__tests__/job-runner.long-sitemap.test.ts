import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRedis, type TestRedis } from '../../../../test/helpers/redis-server.js';
import type { LoopbackServer } from '../../../demo/loopback-server.js';
import type { JobStore } from '../../../store/job-store.js';
import { MemoryJobStore } from '../../../store/memory-job-store.js';
import { connectRedisJobStore } from '../../../store/open-job-store.js';
import { createJob } from '../create-job.js';
import { runSlice } from '../run-slice.js';
import { allShardUrls, exactness, LOOPBACK, QUICK, runToEnd } from './job-fixtures.js';
import { pagesOf, slowUrlset, startSite, urlsetOf } from './small-sites.js';

const URLS = 50_000;
// Leases long enough for a loaded CI machine: these tests are about slices, not about lease expiry.
const SLICE = { ...LOOPBACK, ...QUICK, leaseMs: 3_000, budgetMs: 300 };
let redis: TestRedis;
let server: LoopbackServer;
const stores = new Map<string, JobStore>();

beforeAll(async () => {
  redis = await startTestRedis();
  stores.set('memory', new MemoryJobStore()).set('redis', await connectRedisJobStore(redis.url));
  // 50,000 URLs dripped in 40 chunks 50 ms apart: about 2 s of transfer, several times a 300 ms slice.
  server = await startSite((origin) => ({ '/long.xml': slowUrlset(origin, URLS, 40, 50), '/short.xml': { body: urlsetOf(origin, 'short', 2_000) } }));
});

afterAll(async () => {
  await Promise.all([...stores.values()].map((store) => store.close()));
  await server?.close();
  await redis?.stop();
});

const expected = () => new Set(pagesOf(server.origin, 'slow', URLS));

describe.each(['memory', 'redis'])('a sitemap that takes longer to read than one slice, on the %s store', (name) => {
  const store = () => stores.get(name) as JobStore;

  it('is read to the end past the budget (the budget only stops claiming), every URL exactly once', async () => {
    const { jobId } = await createJob(store(), { sitemapUrls: [server.url('/long.xml')], options: LOOPBACK });
    const hitsBefore = server.hits('/long.xml');
    const { status, slices } = await runToEnd(store(), jobId, SLICE);
    expect(status).toMatchObject({ state: 'done', urlsFound: URLS, errors: [] });
    expect(exactness(await allShardUrls(store(), jobId), expected())).toEqual({ missing: 0, unexpected: 0, duplicates: 0 });
    expect(slices).toBe(1);
    expect(server.hits('/long.xml') - hitsBefore).toBe(1);
  });

  it('keeps what a slice killed mid-read committed, and the next slice finishes it exactly once', async () => {
    const { jobId } = await createJob(store(), { sitemapUrls: [server.url('/long.xml')], options: LOOPBACK });
    const kill = new AbortController();
    const timer = setTimeout(() => kill.abort(new Error('killed')), 1_000);
    const first = await runSlice(store(), jobId, { ...SLICE, signal: kill.signal });
    clearTimeout(timer);
    expect(first.state).toBe('running');
    expect(first.urlsFound).toBeGreaterThan(0);
    expect(first.urlsFound).toBeLessThan(URLS);
    const { status } = await runToEnd(store(), jobId, SLICE);
    expect(status).toMatchObject({ state: 'done', urlsFound: URLS, errors: [] });
    expect(exactness(await allShardUrls(store(), jobId), expected())).toEqual({ missing: 0, unexpected: 0, duplicates: 0 });
  });

  it('is reported as timeout, and the job goes on, when it cannot be read within the hard limit', async () => {
    const { jobId } = await createJob(store(), { sitemapUrls: [server.url('/long.xml'), server.url('/short.xml')], options: { ...LOOPBACK, concurrency: 1 } });
    // Each pass re-fetches from the start, so with 600 ms per slice it can never get past what the first pass read.
    const { status } = await runToEnd(store(), jobId, { ...SLICE, hardLimitMs: 600 });
    expect(status.state).toBe('done');
    expect(status.errors).toContainEqual({ kind: 'timeout', url: server.url('/long.xml'), message: expect.stringContaining('hard limit') });
    expect(status.urlsFound).toBeGreaterThanOrEqual(2_000);
    expect(status.urlsFound).toBeLessThan(URLS + 2_000);
    const found = await allShardUrls(store(), jobId);
    expect(new Set(found).size).toBe(found.length);
  });
});
