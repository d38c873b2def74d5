import { afterAll, beforeAll } from 'vitest';
import { startTestRedis, type TestRedis } from '../../../test/helpers/redis-server.js';
import { startUpstashProxy, type UpstashProxy } from '../../../test/helpers/upstash-proxy.js';
import { MemoryJobStore } from '../memory-job-store.js';
import { connectRedisJobStore, createUpstashJobStore } from '../open-job-store.js';
import { describeJobStoreContract } from './job-store-contract.js';

let redis: TestRedis;
let upstash: UpstashProxy;

beforeAll(async () => {
  redis = await startTestRedis();
  upstash = await startUpstashProxy(redis.url);
});

afterAll(async () => {
  await upstash?.close();
  await redis?.stop();
});

describeJobStoreContract('memory', { open: async () => new MemoryJobStore() });
// Every shard past the first spilled to the job's file: the contract holds whichever side a shard is kept on.
describeJobStoreContract('memory, spilling', { open: async () => new MemoryJobStore({ shardMemoryChars: 1 }) });
describeJobStoreContract('redis', { open: () => connectRedisJobStore(redis.url) });
describeJobStoreContract('upstash', { open: async () => createUpstashJobStore({ url: upstash.url, token: upstash.token }) });
