import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from 'redis';
import { startTestRedis, type TestRedis } from '../../../../test/helpers/redis-server.js';
import { startUpstashProxy, type UpstashProxy } from '../../../../test/helpers/upstash-proxy.js';
import type { LoopbackServer } from '../../../demo/loopback-server.js';
import { jobKeyPrefix } from '../../../store/keys.js';
import { MemoryJobStore } from '../../../store/memory-job-store.js';
import { connectRedisJobStore, createUpstashJobStore } from '../../../store/open-job-store.js';
import type { RedisJobStore } from '../../../store/redis-job-store.js';
import type { JobStatus } from '../../../core/types.js';
import { createJob } from '../create-job.js';
import { getJobStatus, readJobShard, stopJob } from '../job-control.js';
import { runSlice } from '../run-slice.js';
import { allShardUrls, exactness, LOOPBACK, QUICK, runToEnd } from './job-fixtures.js';
import { startNestedSite, type NestedSite } from './nested-site.js';
import { indexOf, pagesOf, slowUrlset, startSite, urlsetOf } from './small-sites.js';

let redis: TestRedis;
let store: RedisJobStore;
let slow: NestedSite;
const servers: LoopbackServer[] = [];

beforeAll(async () => {
  redis = await startTestRedis();
  store = await connectRedisJobStore(redis.url);
  slow = await startNestedSite({ mids: 2, subs: 2, leaves: 3, meanUrls: 1200, delayMs: 40 });
});

afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  await store?.close();
  await slow?.close();
  await redis?.stop();
});

async function site(routes: Parameters<typeof startSite>[0]): Promise<LoopbackServer> {
  const server = await startSite(routes);
  servers.push(server);
  return server;
}

const until = async (check: () => Promise<boolean>, timeoutMs = 10_000) => {
  for (const start = Date.now(); Date.now() - start < timeoutMs;) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('condition not met in time');
};

describe('a running job', () => {
  it('stops promptly when asked, and writes nothing afterwards', async () => {
    const { jobId } = await createJob(store, { rootUrl: slow.rootUrl, options: { ...LOOPBACK, concurrency: 2 } });
    const running = runSlice(store, jobId, { ...LOOPBACK, budgetMs: 20_000, ...QUICK });
    await until(async () => (await getJobStatus(store, jobId)).shardsWritten >= 1);
    const stoppedAt = Date.now();
    expect((await stopJob(store, jobId)).state).toBe('stopped');
    const final = await running;
    expect(Date.now() - stoppedAt).toBeLessThan(1_000);
    expect(final.state).toBe('stopped');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await getJobStatus(store, jobId)).shardsWritten).toBe(final.shardsWritten);
    expect((await runSlice(store, jobId, { ...LOOPBACK, budgetMs: 5_000 })).state).toBe('stopped');
  });

  it('reports growing counts while it runs, then done', async () => {
    const { jobId } = await createJob(store, { rootUrl: slow.rootUrl, options: LOOPBACK });
    const seen: JobStatus[] = [];
    let finished = false;
    const running = runSlice(store, jobId, { ...LOOPBACK, budgetMs: 20_000 }).finally(() => (finished = true));
    while (!finished) {
      seen.push(await getJobStatus(store, jobId));
      await new Promise((resolve) => setTimeout(resolve, 15));
    }
    const final = await running;
    expect(final).toMatchObject({ state: 'done', done: true, urlsFound: slow.expected.size, sitemapsPending: 0 });
    expect(seen.some((status) => status.state === 'running' && status.urlsFound > 0 && status.urlsFound < slow.expected.size)).toBe(true);
    expect(seen.some((status) => status.sitemapsPending > 0)).toBe(true);
    for (const [i, status] of seen.entries()) {
      const before = seen[i - 1];
      if (before) expect(status.urlsFound).toBeGreaterThanOrEqual(before.urlsFound);
    }
  });

  it('reads at most `concurrency` sitemaps at once, as seen by the server, though more loops run', async () => {
    const children = Array.from({ length: 12 }, (_, index) => `/c${index}.xml`);
    const server = await site((origin) => ({
      '/index.xml': { body: indexOf(origin, children) },
      ...Object.fromEntries(children.map((path) => [path, { delayMs: 60, body: urlsetOf(origin, path.slice(1), 1) }])),
    }));
    const { jobId } = await createJob(store, { sitemapUrls: [server.url('/index.xml')], options: { ...LOOPBACK, concurrency: 3 } });
    const { status } = await runToEnd(store, jobId, { ...LOOPBACK, budgetMs: 10_000, ...QUICK });
    expect(status).toMatchObject({ state: 'done', urlsFound: 12 });
    expect(server.maxInFlight()).toBe(3);
  });

  it('hands back at once the work a loop holds waiting for a read slot when the slice stops claiming', async () => {
    // One read slot, two loops: while one loop reads a child (about 600 ms), the other holds the next one, waiting.
    const children = ['/a.xml', '/b.xml', '/c.xml'];
    const server = await site((origin) => ({
      '/index.xml': { body: indexOf(origin, children) },
      ...Object.fromEntries(children.map((path) => [path, slowUrlset(origin, 300, 6, 100, path.slice(1))])),
    }));
    const { jobId } = await createJob(store, { sitemapUrls: [server.url('/index.xml')], options: { ...LOOPBACK, concurrency: 1 } });
    const first = await runSlice(store, jobId, { ...LOOPBACK, budgetMs: 300, reserveMs: 0, leaseMs: 5_000, idlePollMs: 20 });
    expect(first.state).toBe('running');
    // Held by the stopped slice until its 5 s lease ran out, the waiting child would keep this slice from finishing.
    const second = await runSlice(store, jobId, { ...LOOPBACK, budgetMs: 4_000, leaseMs: 5_000, idlePollMs: 20, idleWaitMs: 500 });
    expect(second).toMatchObject({ state: 'done', urlsFound: 900 });
  });

  it('saves before its hard limit ends, mid-sitemap, and the next slice resumes at the offset', async () => {
    // About 800 ms to stream: a slice with a 400 ms hard limit has to stop part-way through.
    const server = await site((origin) => ({ '/big.xml': slowUrlset(origin, 6_000, 40, 20) }));
    const { jobId } = await createJob(store, { sitemapUrls: [server.url('/big.xml')], options: LOOPBACK });
    const start = Date.now();
    const first = await runSlice(store, jobId, { ...LOOPBACK, budgetMs: 400, hardLimitMs: 400, ...QUICK });
    // The hard limit holds up to scheduling noise on a busy machine; the last commit and release fit in the reserve.
    expect(Date.now() - start).toBeLessThanOrEqual(400 + 100);
    expect(first.state).toBe('running');
    expect(first.urlsFound).toBeGreaterThan(0);
    expect(first.urlsFound).toBeLessThan(6_000);
    const { status } = await runToEnd(store, jobId, { ...LOOPBACK, budgetMs: 5_000, ...QUICK });
    expect(status.urlsFound).toBe(6_000);
    expect(exactness(await allShardUrls(store, jobId), new Set(pagesOf(server.origin, 'slow', 6_000)))).toEqual({ missing: 0, unexpected: 0, duplicates: 0 });
    expect(server.hits('/big.xml')).toBeGreaterThanOrEqual(2);
  });
});

describe('a job whose root fails', () => {
  it('fails with the kind of a failing root sitemap', async () => {
    const server = await site(() => ({}));
    const { jobId } = await createJob(store, { sitemapUrls: [server.url('/missing.xml')], options: LOOPBACK });
    const status = await runSlice(store, jobId, { ...LOOPBACK, budgetMs: 5_000 });
    expect(status).toMatchObject({ state: 'failed', done: true, errors: [{ kind: 'http_status', url: server.url('/missing.xml') }] });
  });

  it('fails with robots_unreachable when robots.txt answers 503', async () => {
    const server = await site(() => ({ '/robots.txt': { status: 503, body: 'busy' } }));
    const { jobId } = await createJob(store, { rootUrl: `${server.origin}/`, options: LOOPBACK });
    expect(await runSlice(store, jobId, { ...LOOPBACK, budgetMs: 5_000 })).toMatchObject({ state: 'failed', errors: [{ kind: 'robots_unreachable' }] });
  });

  it('fails with not_sitemap when the site has no sitemap at all', async () => {
    const server = await site(() => ({}));
    const { jobId } = await createJob(store, { rootUrl: `${server.origin}/`, options: LOOPBACK });
    expect(await runSlice(store, jobId, { ...LOOPBACK, budgetMs: 5_000 })).toMatchObject({ state: 'failed', errors: [{ kind: 'not_sitemap' }] });
  });

  it('goes on when one of two roots fails', async () => {
    const server = await site((origin) => ({ '/a.xml': { body: urlsetOf(origin, 'a', 10) } }));
    const { jobId } = await createJob(store, { sitemapUrls: [server.url('/a.xml'), server.url('/gone.xml')], options: LOOPBACK });
    const status = await runSlice(store, jobId, { ...LOOPBACK, budgetMs: 5_000 });
    expect(status).toMatchObject({ state: 'done', urlsFound: 10, errors: [{ kind: 'http_status', url: server.url('/gone.xml') }] });
  });
});

describe('job limits', () => {
  it('reads at most maxSitemaps sitemaps and reports the rest', async () => {
    const children = Array.from({ length: 10 }, (_, i) => `/c${i}.xml`);
    const server = await site((origin) => ({
      '/index.xml': { body: indexOf(origin, children) },
      ...Object.fromEntries(children.map((path, i) => [path, { body: urlsetOf(origin, `c${i}`, 5) }])),
    }));
    const { jobId } = await createJob(store, { sitemapUrls: [server.url('/index.xml')], options: { ...LOOPBACK, maxSitemaps: 4 } });
    const status = await runSlice(store, jobId, { ...LOOPBACK, budgetMs: 5_000 });
    expect(status).toMatchObject({ state: 'done', sitemapsDone: 4, urlsFound: 15, errors: [{ kind: 'too_many_children' }] });
  });

  it('stops at exactly maxUrls', async () => {
    const server = await site((origin) => ({ '/a.xml': { body: urlsetOf(origin, 'a', 1_800) }, '/b.xml': { body: urlsetOf(origin, 'b', 1_800) } }));
    const { jobId } = await createJob(store, { sitemapUrls: [server.url('/a.xml'), server.url('/b.xml')], options: { ...LOOPBACK, maxUrls: 2_500 } });
    const status = await runSlice(store, jobId, { ...LOOPBACK, budgetMs: 5_000 });
    expect(status).toMatchObject({ state: 'done', urlsFound: 2_500, errors: [], limitReached: 'maxUrls (2500) reached: the run stopped there' });
    const found = await allShardUrls(store, jobId);
    expect(found).toHaveLength(2_500);
    expect(new Set(found).size).toBe(2_500);
  });
});

describe('creating a job', () => {
  it('refuses input it cannot run', async () => {
    await expect(createJob(store, {})).rejects.toMatchObject({ kind: 'bad_request' });
    await expect(createJob(store, { rootUrl: 'https://a.example/', sitemapUrls: ['https://a.example/s.xml'] })).rejects.toMatchObject({ kind: 'bad_request' });
    await expect(createJob(store, { rootUrl: 'ftp://a.example/' })).rejects.toMatchObject({ kind: 'invalid_url' });
    await expect(createJob(store, { rootUrl: 'not a url' })).rejects.toMatchObject({ kind: 'invalid_url' });
    await expect(createJob(store, { rootUrl: 'http://169.254.169.254/' })).rejects.toMatchObject({ kind: 'blocked_ssrf' });
    await expect(createJob(store, { rootUrl: 'https://a.example/', options: { concurrency: 0 } })).rejects.toMatchObject({ kind: 'bad_request' });
  });

  it('issues a random URL-safe id and starts a site root with discovery', async () => {
    const one = await createJob(store, { rootUrl: 'https://a.example/', options: LOOPBACK });
    const two = await createJob(store, { rootUrl: 'https://a.example/', options: LOOPBACK });
    expect(one.jobId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(one.jobId).not.toBe(two.jobId);
    expect(one).toMatchObject({ state: 'running', sitemapsPending: 1 });
    expect((await store.getMeta(one.jobId)).rootUrl).toBe('https://a.example/');
  });
});

describe('a job with tampered or foreign state', () => {
  it('refuses to run over a corrupt or foreign record', async () => {
    const raw = createClient({ url: redis.url });
    await raw.connect();
    try {
      const corrupt = await createJob(store, { sitemapUrls: ['https://a.example/s.xml'], options: LOOPBACK });
      await raw.hSet(`${jobKeyPrefix(corrupt.jobId)}status`, 'shardsWritten', '-1');
      await expect(runSlice(store, corrupt.jobId, { ...LOOPBACK, budgetMs: 1_000 })).rejects.toMatchObject({ name: 'StoreError', kind: 'conflict' });
      const foreign = await createJob(store, { sitemapUrls: ['https://a.example/s.xml'], options: LOOPBACK });
      await raw.set(`${jobKeyPrefix(foreign.jobId)}meta`, (await raw.get(`${jobKeyPrefix(corrupt.jobId)}meta`)) ?? '');
      await expect(runSlice(store, foreign.jobId, { ...LOOPBACK, budgetMs: 1_000 })).rejects.toMatchObject({ kind: 'conflict', failure: 'foreign' });
    } finally {
      await raw.close();
    }
  });

  it('answers bad_request for a hostile id and not_found for an unknown one', async () => {
    await expect(runSlice(store, 'job:*', { ...LOOPBACK, budgetMs: 1_000 })).rejects.toMatchObject({ kind: 'bad_request' });
    await expect(getJobStatus(store, '../../etc/passwd')).rejects.toMatchObject({ kind: 'bad_request' });
    await expect(runSlice(store, 'AAAAAAAAAAAAAAAAAAAAAA', { ...LOOPBACK, budgetMs: 1_000 })).rejects.toMatchObject({ kind: 'not_found' });
    await expect(readJobShard(store, 'AAAAAAAAAAAAAAAAAAAAAA', 0)).resolves.toBeNull();
  });
});

describe('the other stores', () => {
  let upstash: UpstashProxy;
  beforeAll(async () => {
    upstash = await startUpstashProxy(redis.url);
  });
  afterAll(async () => upstash?.close());

  it('run a job to the same result in memory and over Upstash REST', async () => {
    const small = await startNestedSite({ mids: 1, subs: 2, leaves: 2, meanUrls: 700 });
    try {
      for (const other of [new MemoryJobStore(), createUpstashJobStore({ url: upstash.url, token: upstash.token })]) {
        const { jobId } = await createJob(other, { rootUrl: small.rootUrl, options: LOOPBACK });
        const { status } = await runToEnd(other, jobId, { ...LOOPBACK, budgetMs: 10_000 });
        expect(status).toMatchObject({ state: 'done', urlsFound: small.expected.size });
        expect(exactness(await allShardUrls(other, jobId), small.expected)).toEqual({ missing: 0, unexpected: 0, duplicates: 0 });
        expect(await readJobShard(other, jobId, 0)).toMatchObject({ jobId, shard: 0, urls: expect.any(Array) });
      }
    } finally {
      await small.close();
    }
  });
});
