import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRedis, type TestRedis } from '../../../../test/helpers/redis-server.js';
import type { LoopbackServer } from '../../../demo/loopback-server.js';
import type { JobStore } from '../../../store/job-store.js';
import { MemoryJobStore } from '../../../store/memory-job-store.js';
import { connectRedisJobStore } from '../../../store/open-job-store.js';
import { createJob } from '../create-job.js';
import { runSlice } from '../run-slice.js';
import { LOOPBACK } from './job-fixtures.js';
import { startSite, urlsetOf } from './small-sites.js';

let redis: TestRedis;
let server: LoopbackServer;
const stores: Array<{ name: string; store: JobStore }> = [];

beforeAll(async () => {
  redis = await startTestRedis();
  stores.push({ name: 'memory', store: new MemoryJobStore() }, { name: 'redis', store: await connectRedisJobStore(redis.url) });
  server = await startSite((origin) => ({ '/a.xml': { body: urlsetOf(origin, 'a', 10) } }));
});

afterAll(async () => {
  await Promise.all(stores.map(({ store }) => store.close()));
  await server?.close();
  await redis?.stop();
});

describe.each(['memory', 'redis'])('the network policy of a job on the %s store', (name) => {
  const storeOf = () => stores.find((entry) => entry.name === name)?.store as JobStore;

  it('is not kept in the job meta', async () => {
    const store = storeOf();
    const { jobId } = await createJob(store, { sitemapUrls: [server.url('/a.xml')], options: LOOPBACK });
    const meta = await store.getMeta(jobId);
    expect(meta.options).not.toHaveProperty('net');
  });

  it('is the one each slice is given: a job created permissively and continued strictly obeys the strict one', async () => {
    const store = storeOf();
    const { jobId } = await createJob(store, { sitemapUrls: [server.url('/a.xml')], options: LOOPBACK });
    const status = await runSlice(store, jobId, { budgetMs: 5_000, net: { allowPrivate: false } });
    expect(status).toMatchObject({ state: 'failed', urlsFound: 0, errors: [{ kind: 'blocked_ssrf', url: server.url('/a.xml') }] });
  });

  it('reads loopback targets when the slice itself allows them', async () => {
    const store = storeOf();
    const { jobId } = await createJob(store, { sitemapUrls: [server.url('/a.xml')], options: LOOPBACK });
    const status = await runSlice(store, jobId, { ...LOOPBACK, budgetMs: 5_000 });
    expect(status).toMatchObject({ state: 'done', urlsFound: 10 });
  });
});
