// DELETE of a job on every store: the job, its shards and its leases are gone, other jobs untouched.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRedis, type TestRedis } from '../../../test/helpers/redis-server.js';
import { startUpstashProxy, type UpstashProxy } from '../../../test/helpers/upstash-proxy.js';
import { openRedisProbe, type RedisProbe } from '../../service/__tests__/http-fixtures.js';
import type { JobStore } from '../job-store.js';
import { jobKeyPrefix } from '../keys.js';
import { MemoryJobStore } from '../memory-job-store.js';
import { connectRedisJobStore, createUpstashJobStore } from '../open-job-store.js';
import { claimWork, createdJob, urls } from './store-fixtures.js';
import { getJobStatus } from '../../factory/jobs/job-control.js';

let redis: TestRedis;
let upstash: UpstashProxy;
let probe: RedisProbe;

beforeAll(async () => {
  redis = await startTestRedis();
  [upstash, probe] = await Promise.all([startUpstashProxy(redis.url), openRedisProbe(redis.url)]);
});
afterAll(async () => {
  await probe?.close();
  await upstash?.close();
  await redis?.stop();
});

const stores: Array<[string, () => Promise<JobStore>, boolean]> = [
  ['memory', async () => new MemoryJobStore(), false],
  ['redis', () => connectRedisJobStore(redis.url), true],
  ['upstash', async () => createUpstashJobStore({ url: upstash.url, token: upstash.token }), true],
];

describe.each(stores)('deleteJob on the %s store', (_name, open, onRedis) => {
  it('removes a job with shards and a held lease, keeps the others, and is false for an unknown job', async () => {
    const store = await open();
    try {
      const jobId = await createdJob(store, ['https://example.com/a.xml', 'https://example.com/b.xml']);
      const other = await createdJob(store, ['https://example.com/c.xml']);
      const work = await claimWork(store, jobId);
      for (const [n, offset] of [0, 1000].entries()) {
        await store.commitShard(jobId, { workId: work.workId, token: work.token, offset, entries: urls(`s${n}`, 1000) });
      }
      const held = await claimWork(store, jobId); // a second lease, left held
      expect(held.workId).not.toBe(work.workId);
      if (onRedis) expect((await probe.keys()).filter((key) => key.startsWith(`${jobKeyPrefix(jobId)}lease:`)).length).toBe(2);

      expect(await store.deleteJob(jobId)).toBe(true);
      await expect(getJobStatus(store, jobId)).rejects.toMatchObject({ kind: 'not_found' });
      expect(await store.readShard(jobId, 0).catch(() => null)).toBeNull();
      if (onRedis) expect((await probe.keys()).filter((key) => key.startsWith(jobKeyPrefix(jobId)))).toEqual([]);
      expect((await getJobStatus(store, other)).state).toBe('running');
      expect(await store.deleteJob(jobId)).toBe(false);
    } finally {
      await store.close();
    }
  });
});
