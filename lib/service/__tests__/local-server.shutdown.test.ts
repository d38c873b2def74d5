// `serve`'s graceful stop: shutdown() aborts the slices of running handlers through request.signal; each commits
// what it read, releases its leases and answers; the job then continues at once in another slice.
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSlice } from '../../factory/jobs/index.js';
import { JobStatusSchema } from '../../core/types.js';
import { jobKeyPrefix } from '../../store/keys.js';
import { connectRedisJobStore } from '../../store/open-job-store.js';
import type { RedisJobStore } from '../../store/redis-job-store.js';
import { startTestRedis, type TestRedis } from '../../../test/helpers/redis-server.js';
import { startLocalApiServer, type LocalApiServer } from '../local-server.js';
import { readFactoryConfig } from '../../config/factory-config.js';
import { createService, type ServiceContext } from '../service.js';
import { demoGroundTruth, expectExactlyOnce, openRedisProbe, startSlowDemoSite, type RedisProbe, type SlowDemoSite } from './http-fixtures.js';
import { getJobStatus } from '../../factory/jobs/job-control.js';

const API_DIR = fileURLToPath(new URL('../../../api/', import.meta.url));

describe('shutting the local API server down mid-slice', () => {
  let redis: TestRedis;
  let site: SlowDemoSite;
  let probe: RedisProbe;
  let store: RedisJobStore;
  let server: LocalApiServer;
  let service: ServiceContext;
  let truth: Set<string>;

  beforeAll(async () => {
    [redis, site] = await Promise.all([startTestRedis(), startSlowDemoSite(0.05)]);
    [probe, store, truth] = await Promise.all([openRedisProbe(redis.url), connectRedisJobStore(redis.url), demoGroundTruth(site)]);
    service = createService(readFactoryConfig({ REDIS_URL: redis.url, FACTORY_ALLOW_HOSTS: `127.0.0.1:${site.port}` }));
    server = await startLocalApiServer(API_DIR, { host: '127.0.0.1', port: 0 }, () => service);
  });
  afterAll(async () => {
    await server?.shutdown({ graceMs: 0 });
    await service?.release();
    await store?.close();
    await probe?.close();
    await Promise.all([redis?.stop(), site?.close()]);
  });

  /** The id of the one job in Redis, once its first sitemap is done (progress is committed). */
  async function jobWithProgress(): Promise<string> {
    for (;;) {
      const statusKey = (await probe.keys()).find((key) => key.endsWith(':status'));
      const jobId = statusKey ? /\{(.+)\}/.exec(statusKey)?.[1] : undefined;
      if (jobId && (await getJobStatus(store, jobId)).sitemapsDone >= 2) return jobId;
      await sleep(50);
    }
  }

  it('answers the running slice with its committed progress, leaves no lease behind, and the job continues at once', { timeout: 60_000 }, async () => {
    site.setDelay(150);
    const started = fetch(`${server.origin}/api/factory/discover`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ rootUrl: site.rootUrl, budgetMs: 120_000, options: { concurrency: 1 } }),
    });
    const jobId = await jobWithProgress();
    expect(server.inFlight()).toBe(1);

    expect(await server.shutdown()).toBe(true); // every handler answered within the grace period (2 s)
    const response = await started;
    expect(response.status).toBe(201);
    const status = JobStatusSchema.parse(await response.json());
    expect(status).toMatchObject({ jobId, state: 'running' });
    expect(status.sitemapsDone).toBeGreaterThanOrEqual(2);
    expect(status.sitemapsPending).toBeGreaterThan(0);
    expect((await probe.keys()).filter((key) => key.startsWith(`${jobKeyPrefix(jobId)}lease:`))).toEqual([]);
    await expect(fetch(`${server.origin}/api/factory/discover?jobId=${jobId}`)).rejects.toThrow();

    // Nothing is locked: the next slice claims work at once and carries the job to the end.
    site.setDelay(0);
    // The deployment's network policy comes with every slice (a job never stores it).
    const net = { allowHosts: [`127.0.0.1:${site.port}`] };
    const next = await runSlice(store, jobId, { budgetMs: 30_000, idleWaitMs: 0, net });
    expect(next.sitemapsDone).toBeGreaterThan(status.sitemapsDone);
    let final = next;
    while (final.state === 'running') final = await runSlice(store, jobId, { budgetMs: 30_000, net });
    expect(final.state).toBe('done');
    const shards = await Promise.all(Array.from({ length: final.shardsWritten }, (_, n) => store.readShard(jobId, n)));
    expectExactlyOnce(
      shards.flatMap((entries) => (entries ?? []).map((entry) => entry.url)),
      truth,
    );
  });
});
