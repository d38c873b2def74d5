import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from '@upstash/redis';
import { startTestRedis, type TestRedis } from '../../../test/helpers/redis-server.js';
import { startUpstashProxy, type UpstashProxy } from '../../../test/helpers/upstash-proxy.js';
import { createUpstashJobStore } from '../open-job-store.js';
import { claimWork, createdJob, urls } from './store-fixtures.js';
import { getJobStatus } from '../../factory/jobs/job-control.js';

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

const rawClient = (token = proxy.token, automaticDeserialization = false) =>
  new Redis({ url: proxy.url, token, automaticDeserialization, enableTelemetry: false, enableAutoPipelining: false, retry: false });

describe('upstash REST test proxy', () => {
  it('answers single commands with base64 strings the client decodes', async () => {
    const client = rawClient();
    expect(await client.set('cf:test:unicode', 'ünïcode ✓')).toBe('OK');
    expect(await client.get('cf:test:unicode')).toBe('ünïcode ✓');
    expect(await client.incr('cf:test:counter')).toBe(1);
  });

  it('keeps "1000" a string with automatic deserialization off, as the store needs', async () => {
    await rawClient().set('cf:test:number', '1000');
    expect(await rawClient().get('cf:test:number')).toBe('1000');
    expect(await rawClient(proxy.token, true).get('cf:test:number')).toBe(1000);
  });

  it('runs a pipeline and a multi-exec transaction', async () => {
    const client = rawClient();
    expect(await client.pipeline().set('cf:test:p', 'a').get('cf:test:p').incr('cf:test:pn').exec()).toEqual(['OK', 'a', 1]);
    expect(await client.multi().set('cf:test:m', 'b').get('cf:test:m').exec()).toEqual(['OK', 'b']);
  });

  it("reports a failing command inside a pipeline as that command's error", async () => {
    const client = rawClient();
    await client.set('cf:test:str', 'x');
    await expect(client.pipeline().get('cf:test:str').incr('cf:test:str').exec()).rejects.toThrow(/not an integer/);
  });

  it('refuses a wrong bearer token', async () => {
    await expect(rawClient('wrong').get('cf:test:p')).rejects.toThrow(/Unauthorized/);
  });
});

describe('upstash job store', () => {
  it('commits a shard in one HTTP request once the script is cached', async () => {
    const store = createUpstashJobStore({ url: proxy.url, token: proxy.token });
    const jobId = await createdJob(store, ['https://example.com/a.xml']);
    const work = await claimWork(store, jobId);
    await store.commitShard(jobId, { workId: work.workId, token: work.token, offset: 0, entries: urls('p', 1000) });
    const before = proxy.stats().requests;
    store.resetCommandStats();
    await store.commitShard(jobId, { workId: work.workId, token: work.token, offset: 1000, entries: urls('q', 1000) });
    expect(proxy.stats().requests - before).toBe(1);
    expect(store.commandStats()).toEqual({ total: 1, byName: { EVALSHA: 1 } });
    expect(await store.readShard(jobId, 1)).toEqual(urls('q', 1000));
  });

  it('reports refused credentials as an unavailable store, not as bad data', async () => {
    const store = createUpstashJobStore({ url: proxy.url, token: 'wrong' });
    await expect(getJobStatus(store, 'AAAAAAAAAAAAAAAAAAAAAA')).rejects.toMatchObject({
      name: 'StoreError',
      kind: 'store_unavailable',
      failure: 'unavailable',
    });
  });
});
