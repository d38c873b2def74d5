import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRedis, type TestRedis } from '../../../../test/helpers/redis-server.js';
import { connectRedisJobStore } from '../../../store/open-job-store.js';
import type { RedisJobStore } from '../../../store/redis-job-store.js';
import { createJob } from '../create-job.js';
import { runSlice } from '../run-slice.js';
import { allShardUrls, exactness, LOOPBACK } from './job-fixtures.js';
import { startNestedSite, type NestedSite } from './nested-site.js';
import { getJobStatus } from '../job-control.js';

let redis: TestRedis;
let site: NestedSite;
const stores: RedisJobStore[] = [];

beforeAll(async () => {
  redis = await startTestRedis();
  // Every answer takes 100 ms: robots.txt, 1 root index, 2 mid indexes, 4 sub indexes, 24 urlsets and a failing one.
  site = await startNestedSite({ mids: 2, subs: 2, leaves: 6, meanUrls: 400, delayMs: 100 });
  for (let i = 0; i < 4; i += 1) stores.push(await connectRedisJobStore(redis.url));
});

afterAll(async () => {
  await Promise.all(stores.map((store) => store.close()));
  await site?.close();
  await redis?.stop();
});

/** One worker as its own machine: its own connection, calling slices until the job says done. */
async function worker(store: RedisJobStore, jobId: string, workerId: string): Promise<number> {
  let slices = 0;
  for (let status = await getJobStatus(store, jobId); !status.done; slices += 1) {
    status = await runSlice(store, jobId, { ...LOOPBACK, budgetMs: 5_000, workerId, idlePollMs: 25, idleWaitMs: 500 });
  }
  return slices;
}

/** Runs a job with `workers` workers at once and returns its wall time. */
async function timedRun(workers: number): Promise<{ ms: number; jobId: string; slices: number[] }> {
  const [first] = stores;
  if (!first) throw new Error('no store');
  const { jobId } = await createJob(first, { rootUrl: site.rootUrl, options: { ...LOOPBACK, concurrency: 1 } });
  const start = Date.now();
  const slices = await Promise.all(stores.slice(0, workers).map((store, i) => worker(store, jobId, `worker-${i}`)));
  return { ms: Date.now() - start, jobId, slices };
}

describe('several workers on one job', () => {
  it('share the work exactly once and finish at least twice as fast as one worker', async () => {
    const single = await timedRun(1);
    const shared = await timedRun(4);
    const [first] = stores;
    if (!first) throw new Error('no store');
    for (const run of [single, shared]) {
      expect(exactness(await allShardUrls(first, run.jobId), site.expected)).toEqual({ missing: 0, unexpected: 0, duplicates: 0 });
    }
    const ratio = single.ms / shared.ms;
    console.info(`[figures] 1 worker ${single.ms} ms, 4 workers ${shared.ms} ms (slices ${shared.slices.join('/')}): ${ratio.toFixed(2)}x faster`);
    expect(ratio).toBeGreaterThanOrEqual(2);
  });
});
