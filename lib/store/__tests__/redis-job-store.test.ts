import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from 'redis';
import { startTcpFaultProxy, type TcpFaultProxy } from '../../../test/helpers/tcp-fault-proxy.js';
import { startTestRedis, type TestRedis } from '../../../test/helpers/redis-server.js';
import { newLeaseToken } from '../job-id.js';
import { jobKeyPrefix } from '../keys.js';
import { connectRedisJobStore, type StoreOptions } from '../open-job-store.js';
import type { RedisJobStore } from '../redis-job-store.js';
import { COMMIT_SHARD } from '../scripts/job-scripts.js';
import { claimWork, createdJob, sitemapWork, urls } from './store-fixtures.js';
import { getJobStatus } from '../../factory/jobs/job-control.js';
import { MAX_CLAIMS_WITHOUT_PROGRESS } from '../../factory/jobs/stall-policy.js';

let redis: TestRedis;
let raw: ReturnType<typeof createClient>;

beforeAll(async () => {
  redis = await startTestRedis();
  raw = createClient({ url: redis.url });
  await raw.connect();
});

afterAll(async () => {
  await raw?.close();
  await redis?.stop();
});

async function withStore(test: (store: RedisJobStore) => Promise<void>, url = redis.url, options: StoreOptions = {}): Promise<void> {
  const store = await connectRedisJobStore(url, { ttlMs: 60_000, ...options });
  try {
    await test(store);
  } finally {
    await store.close();
  }
}

describe('redis job store keys', () => {
  it('gives every key of a job one prefix and one absolute expiry', () =>
    withStore(async (store) => {
      const jobId = await createdJob(store, ['https://example.com/a.xml']);
      const work = await claimWork(store, jobId);
      await store.commitShard(jobId, { workId: work.workId, token: work.token, offset: 0, entries: urls('p', 3) });
      await store.enqueue(jobId, { items: [sitemapWork('https://example.com/b.xml', 1)], roots: false });
      await store.finishWork(jobId, {
        workId: work.workId,
        token: work.token,
        errors: [{ kind: 'http_status', url: 'x', message: 'm' }],
        countSitemap: true,
        failure: 'none',
      });
      const keys = await raw.keys(`${jobKeyPrefix(jobId).replace(/[{}]/g, '\\$&')}*`);
      expect(keys.length).toBeGreaterThanOrEqual(6);
      const expiries = await Promise.all(keys.map((key) => raw.sendCommand(['PEXPIRETIME', key])));
      expect(new Set(expiries).size).toBe(1);
      const { startedAt } = await getJobStatus(store, jobId);
      expect(expiries[0]).toBe(Date.parse(startedAt) + 60_000);
    }));

  // A step sets the expiry only on the keys it wrote: keys emptied (and so deleted) and written again must get it too.
  it('gives the expiry to keys a later step creates again after they were emptied', () =>
    withStore(async (store) => {
      const jobId = await createdJob(store, ['https://example.com/a.xml']);
      await store.seedPrevious(jobId, { 'example.com/old.xml': { etag: '"o"', lastModified: null, lastmod: null } });
      const first = await claimWork(store, jobId);
      // Each finish empties the active set (and so deletes it) before its claim creates it again.
      await store.enqueue(jobId, {
        items: [sitemapWork('https://example.com/b.xml', 1), sitemapWork('https://example.com/c.xml', 1)],
        roots: false,
        workId: first.workId,
      });
      const finish = { errors: [], countSitemap: true, failure: 'none' as const };
      const next = await store.finishWork(jobId, {
        workId: first.workId,
        token: first.token,
        ...finish,
        shard: { offset: 0, entries: urls('a', 2) },
        claim: { token: newLeaseToken(), leaseMs: 10_000, maxClaims: MAX_CLAIMS_WITHOUT_PROGRESS },
      });
      expect(next.type === 'finished' && next.next?.type).toBe('claimed');
      const second = next.type === 'finished' && next.next?.type === 'claimed' ? next.next.work : null;
      if (second === null) throw new Error('no next claim');
      expect(await store.visit(jobId, second.workId, 'example.com/redirected.xml')).toBe('added');
      const resync = {
        key: 'example.com/b.xml',
        url: 'https://example.com/b.xml',
        validator: { etag: '"b"', lastModified: null, lastmod: null },
        unchanged: true,
      };
      const claim = { token: newLeaseToken(), leaseMs: 10_000, maxClaims: MAX_CLAIMS_WITHOUT_PROGRESS };
      const cycle = { url: 'https://example.com/b.xml', target: 'https://example.com/a.xml' };
      await store.finishWork(jobId, {
        workId: second.workId,
        token: second.token,
        ...finish,
        errors: [{ kind: 'http_status', url: 'x', message: 'm' }],
        shard: { offset: 0, entries: urls('b', 1) },
        resync,
        duplicates: 1,
        cycle,
        claim,
      });
      // The lease of the work now held (c) has its own, short expiry.
      const keys = (await raw.keys(`${jobKeyPrefix(jobId).replace(/[{}]/g, '\\$&')}*`)).filter((key) => !key.includes(':lease:'));
      expect(keys.length).toBeGreaterThanOrEqual(10);
      const expiries = await Promise.all(keys.map(async (key) => [key, Number(await raw.sendCommand(['PEXPIRETIME', key]))] as const));
      const { startedAt } = await getJobStatus(store, jobId);
      expect(expiries.filter(([, at]) => at !== Date.parse(startedAt) + 60_000)).toEqual([]);
    }));
});

describe('redis job store command count', () => {
  it('commits a 1000-URL shard in one command', () =>
    withStore(async (store) => {
      const jobId = await createdJob(store, ['https://example.com/a.xml']);
      const work = await claimWork(store, jobId);
      store.resetCommandStats();
      await store.commitShard(jobId, { workId: work.workId, token: work.token, offset: 0, entries: urls('p', 1000) });
      expect(store.commandStats()).toEqual({ total: 1, byName: { EVALSHA: 1 } });
    }));

  it('sends a script body only when the server does not have it cached', () =>
    withStore(async (store) => {
      const jobId = await createdJob(store, ['https://example.com/a.xml']);
      await raw.sendCommand(['SCRIPT', 'FLUSH']);
      store.resetCommandStats();
      await getJobStatus(store, jobId);
      await getJobStatus(store, jobId);
      expect(store.commandStats()).toEqual({ total: 3, byName: { EVALSHA: 2, EVAL: 1 } });
    }));
});

describe('redis job store with tampered or foreign state', () => {
  const tamperedJob = async (store: RedisJobStore) => {
    const jobId = await createdJob(store, ['https://example.com/a.xml']);
    return { jobId, prefix: jobKeyPrefix(jobId) };
  };

  it('refuses a counter that is not a number', () =>
    withStore(async (store) => {
      const { jobId, prefix } = await tamperedJob(store);
      await raw.hSet(`${prefix}status`, 'urlsFound', 'lots');
      await expect(getJobStatus(store, jobId)).rejects.toMatchObject({ name: 'StoreError', kind: 'conflict', failure: 'corrupt' });
      await expect(store.claim(jobId, { token: newLeaseToken(), leaseMs: 100, maxClaims: MAX_CLAIMS_WITHOUT_PROGRESS })).rejects.toMatchObject({
        failure: 'corrupt',
      });
    }));

  it('refuses status written by another version as foreign', () =>
    withStore(async (store) => {
      const { jobId, prefix } = await tamperedJob(store);
      await raw.hSet(`${prefix}status`, 'v', '2');
      await expect(getJobStatus(store, jobId)).rejects.toMatchObject({ kind: 'conflict', failure: 'foreign' });
    }));

  it('refuses meta copied from another job', () =>
    withStore(async (store) => {
      const one = await tamperedJob(store);
      const other = await tamperedJob(store);
      await raw.set(`${other.prefix}meta`, (await raw.get(`${one.prefix}meta`)) ?? '');
      await expect(store.getMeta(other.jobId)).rejects.toMatchObject({ failure: 'foreign' });
    }));

  it('refuses meta that is not JSON, or not meta', () =>
    withStore(async (store) => {
      const { jobId, prefix } = await tamperedJob(store);
      await raw.set(`${prefix}meta`, '{not json');
      await expect(store.getMeta(jobId)).rejects.toMatchObject({ failure: 'corrupt' });
      await raw.set(`${prefix}meta`, JSON.stringify({ v: 1, jobId, rootUrl: 5 }));
      await expect(store.getMeta(jobId)).rejects.toMatchObject({ failure: 'corrupt' });
    }));

  it('refuses a shard that is not an array of URLs', () =>
    withStore(async (store) => {
      const { jobId, prefix } = await tamperedJob(store);
      await raw.set(`${prefix}shard:0`, JSON.stringify({ urls: [] }));
      await expect(store.readShard(jobId, 0)).rejects.toMatchObject({ failure: 'corrupt' });
      await raw.set(`${prefix}shard:0`, JSON.stringify([1, 2]));
      await expect(store.readShard(jobId, 0)).rejects.toMatchObject({ failure: 'corrupt' });
    }));

  it('refuses a tampered work item on claim', () =>
    withStore(async (store) => {
      const { jobId, prefix } = await tamperedJob(store);
      await raw.hSet(`${prefix}items`, '1', JSON.stringify({ type: 'sitemap', ref: { url: 'x', depth: -1 } }));
      await expect(store.claim(jobId, { token: newLeaseToken(), leaseMs: 100, maxClaims: MAX_CLAIMS_WITHOUT_PROGRESS })).rejects.toMatchObject({
        failure: 'corrupt',
      });
    }));

  it('refuses a tampered error entry', () =>
    withStore(async (store) => {
      const { jobId, prefix } = await tamperedJob(store);
      await raw.rPush(`${prefix}errors`, JSON.stringify({ kind: 'made_up', url: null, message: 'x' }));
      await expect(getJobStatus(store, jobId)).rejects.toMatchObject({ failure: 'corrupt' });
    }));

  it('refuses a key of the wrong type', () =>
    withStore(async (store) => {
      const { jobId, prefix } = await tamperedJob(store);
      await raw.del(`${prefix}status`);
      await raw.set(`${prefix}status`, 'hello');
      await expect(getJobStatus(store, jobId)).rejects.toMatchObject({ kind: 'conflict', failure: 'corrupt' });
    }));
});

describe('redis job store over a failing connection', () => {
  let proxy: TcpFaultProxy;
  const port = () => Number(new URL(redis.url).port);

  beforeAll(async () => {
    proxy = await startTcpFaultProxy({ host: '127.0.0.1', port: port() });
  });
  afterAll(async () => proxy?.close());

  it('commits exactly once when the connection resets before or after the shard write', () =>
    withStore(async (store) => {
      const jobId = await createdJob(store, ['https://example.com/a.xml']);
      const work = await claimWork(store, jobId);
      await getJobStatus(store, jobId); // caches scripts, so the commit goes out as EVALSHA
      const commits = [urls('a', 1000), urls('b', 1000), urls('c', 10)];
      let offset = 0;
      for (const [i, batch] of commits.entries()) {
        let armed = true;
        // First commit: the request is cut (never applied). Later ones: the reply is cut (applied, answer lost).
        proxy.setPlan(({ direction, chunk }) => {
          if (!armed) return 'pass';
          const hit = i === 0 ? direction === 'up' && chunk.includes(COMMIT_SHARD.sha) : direction === 'down' && chunk.includes('committed');
          if (hit) armed = false;
          return hit ? 'reset' : 'pass';
        });
        const result = await store.commitShard(jobId, { workId: work.workId, token: work.token, offset, entries: batch });
        expect(result.type).toBe(i === 0 ? 'committed' : 'duplicate');
        offset += batch.length;
      }
      proxy.setPlan(null);
      expect(proxy.resets()).toBeGreaterThanOrEqual(3);
      expect(await getJobStatus(store, jobId)).toMatchObject({ urlsFound: 2010, shardsWritten: 3 });
      expect((await Promise.all([0, 1, 2].map((n) => store.readShard(jobId, n)))).flat()).toEqual(commits.flat());
    }, `redis://127.0.0.1:${proxy.port}`));

  it('reports an unreachable store as a retryable store_unavailable after its retries', () =>
    withStore(
      async (store) => {
        const jobId = await createdJob(store, ['https://example.com/a.xml']);
        proxy.setPlan(() => 'reset');
        await expect(getJobStatus(store, jobId)).rejects.toMatchObject({ name: 'StoreError', kind: 'store_unavailable', failure: 'unavailable' });
        proxy.setPlan(null);
        expect((await getJobStatus(store, jobId)).state).toBe('running');
      },
      `redis://127.0.0.1:${proxy.port}`,
      { retry: { attempts: 4, baseDelayMs: 20, maxDelayMs: 100 } },
    ));
});
