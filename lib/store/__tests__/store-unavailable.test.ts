// A store that is up but cannot serve right now (out of memory, a script hogging it, a read-only replica, an edge
// answering 5xx or 429) is a retryable `store_unavailable`, never a `conflict`; NOSCRIPT reloads the script.
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startTestRedis, type TestRedis } from '../../../test/helpers/redis-server.js';
import { startUpstashProxy, type UpstashProxy } from '../../../test/helpers/upstash-proxy.js';
import { connectRedisJobStore, createUpstashJobStore } from '../open-job-store.js';
import type { RedisJobStore } from '../redis-job-store.js';
import * as scripts from '../scripts/job-scripts.js';
import { createdJob, newJob, sleep } from './store-fixtures.js';
import { getJobStatus } from '../../factory/jobs/job-control.js';

const FAST_RETRY = { attempts: 3, baseDelayMs: 10, maxDelayMs: 50 };
const SHAS = Object.values(scripts).map((script) => script.sha);

/** The error `act` rejects with, asserted to be a retryable store_unavailable whose message leaks no reply. */
async function expectUnavailable(act: Promise<unknown>): Promise<Error> {
  const error = await act.then(
    () => new Error('expected a rejection'),
    (reason: unknown) => reason as Error,
  );
  expect(error).toMatchObject({ name: 'StoreError', kind: 'store_unavailable', failure: 'unavailable', retryAfterSeconds: 2 });
  for (const sha of SHAS) expect(error.message).not.toContain(sha);
  expect(error.message).not.toMatch(/@user_script|maxmemory|html|command was/i);
  return error;
}

describe('a Redis that cannot serve right now', () => {
  let redis: TestRedis;
  let admin: ReturnType<typeof createClient>;
  let store: RedisJobStore;

  beforeAll(async () => {
    redis = await startTestRedis();
    admin = createClient({ url: redis.url });
    admin.on('error', () => {});
    await admin.connect();
    store = await connectRedisJobStore(redis.url, { retry: FAST_RETRY });
  });
  afterAll(async () => {
    await store?.close();
    await admin?.quit();
    await redis?.stop();
  });

  it('is store_unavailable when out of memory (OOM), and works again once memory is back', async () => {
    await admin.configSet('maxmemory', '1');
    try {
      const error = await expectUnavailable(store.createJob(newJob(['https://example.com/a.xml'])));
      expect(error.message).toContain('OOM');
    } finally {
      await admin.configSet('maxmemory', '0');
    }
    expect((await getJobStatus(store, await createdJob(store, ['https://example.com/a.xml']))).state).toBe('running');
  });

  it('is store_unavailable while another script keeps it BUSY, and works again after SCRIPT KILL', async () => {
    const jobId = await createdJob(store, ['https://example.com/b.xml']);
    await admin.configSet('busy-reply-threshold', '50');
    const blocker = createClient({ url: redis.url });
    blocker.on('error', () => {});
    await blocker.connect();
    const hog = blocker
      .eval("local s = tonumber(redis.call('TIME')[1]) while tonumber(redis.call('TIME')[1]) < s + 20 do end return 1", { keys: [], arguments: [] })
      .catch(() => 'killed');
    try {
      while (
        await admin.ping().then(
          () => true,
          () => false,
        )
      )
        await sleep(20);
      const error = await expectUnavailable(getJobStatus(store, jobId));
      expect(error.message).toContain('BUSY');
    } finally {
      await admin.sendCommand(['SCRIPT', 'KILL']).catch(() => undefined);
      expect(await hog).toBe('killed');
      await blocker.quit();
    }
    expect((await getJobStatus(store, jobId)).state).toBe('running');
  });

  it('is store_unavailable on a read-only replica (READONLY), not a conflict', async () => {
    const jobId = await createdJob(store, ['https://example.com/c.xml']);
    await admin.sendCommand(['REPLICAOF', '127.0.0.1', String(await freePort())]);
    try {
      const error = await expectUnavailable(store.stop(jobId));
      expect(error.message).toContain('READONLY');
    } finally {
      await admin.sendCommand(['REPLICAOF', 'NO', 'ONE']);
    }
    expect((await store.stop(jobId)).state).toBe('stopped');
  });

  it('reloads the scripts after SCRIPT FLUSH (NOSCRIPT) and answers as before', async () => {
    const jobId = await createdJob(store, ['https://example.com/d.xml']);
    await admin.sendCommand(['SCRIPT', 'FLUSH']);
    store.resetCommandStats();
    expect((await getJobStatus(store, jobId)).state).toBe('running');
    expect((await getJobStatus(store, jobId)).state).toBe('running');
    // The first call learns NOSCRIPT and sends the body once; the second runs from the reloaded cache.
    expect(store.commandStats().byName).toEqual({ EVALSHA: 2, EVAL: 1 });
  });
});

describe('an Upstash endpoint that cannot serve right now', () => {
  let redis: TestRedis;
  let proxy: UpstashProxy;

  beforeAll(async () => {
    redis = await startTestRedis();
    proxy = await startUpstashProxy(redis.url);
  });
  afterAll(async () => {
    await proxy?.close();
    await redis?.stop();
  });

  it.each([500, 502, 503, 429])('is store_unavailable when the endpoint answers %i, and works again after', async (status) => {
    const store = createUpstashJobStore({ url: proxy.url, token: proxy.token }, { retry: FAST_RETRY });
    const jobId = await createdJob(store, ['https://example.com/a.xml']);
    proxy.setFailure(status);
    const before = proxy.stats().requests;
    try {
      await expectUnavailable(getJobStatus(store, jobId));
    } finally {
      proxy.setFailure(null);
    }
    expect(proxy.stats().requests - before).toBe(FAST_RETRY.attempts);
    expect((await getJobStatus(store, jobId)).state).toBe('running');
  });
});
