import { afterAll, beforeAll } from 'vitest';
import { startTestRedis, type TestRedis } from '../../../../test/helpers/redis-server.js';
import type { JobStore } from '../../../store/job-store.js';
import { MemoryJobStore } from '../../../store/memory-job-store.js';
import { connectRedisJobStore } from '../../../store/open-job-store.js';
import type { JobStatus } from '../../../core/types.js';
import { runSlice, type RunSliceOptions } from '../run-slice.js';
import { getJobStatus } from '../job-control.js';

/** Loopback sites need private targets allowed; everything else keeps its default. */
export const LOOPBACK = { net: { allowPrivate: true } } as const;

/** Fast-expiring leases and short idle waits, so tests of kills and handovers take seconds. */
export const QUICK: Omit<RunSliceOptions, 'budgetMs'> = { leaseMs: 300, idlePollMs: 20, idleWaitMs: 300 };

const MAX_SLICES = 500;

/** Runs slices until the job is no longer running; returns the last status and the number of slices. */
export async function runToEnd(store: JobStore, jobId: string, options: RunSliceOptions): Promise<{ status: JobStatus; slices: number }> {
  for (let slices = 1; slices <= MAX_SLICES; slices += 1) {
    const status = await runSlice(store, jobId, options);
    if (status.done) return { status, slices };
  }
  throw new Error(`job ${jobId} not done after ${MAX_SLICES} slices`);
}

/** Every URL of every shard of a job, in shard order. */
export async function allShardUrls(store: JobStore, jobId: string): Promise<string[]> {
  const { shardsWritten } = await getJobStatus(store, jobId);
  const shards = await Promise.all(Array.from({ length: shardsWritten }, (_, n) => store.readShard(jobId, n)));
  return shards.flatMap((entries, n) => {
    if (entries === null) throw new Error(`shard ${n} missing`);
    return entries.map((entry) => entry.url);
  });
}

/** Compares found URLs with the ground truth: missing, unexpected and duplicated counts (all zero when exact). */
export function exactness(found: string[], expected: Set<string>): { missing: number; unexpected: number; duplicates: number } {
  const unique = new Set(found);
  return {
    missing: [...expected].filter((url) => !unique.has(url)).length,
    unexpected: [...unique].filter((url) => !expected.has(url)).length,
    duplicates: found.length - unique.size,
  };
}

/** A small seeded PRNG (mulberry32): random kill points that replay the same on every run. */
export function seededRandom(seed: number): (below: number) => number {
  let state = seed >>> 0;
  return (below) => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * below);
  };
}

/**
 * Both stores a job suite runs on, for `describe.each`: the memory store, and Redis on a private redis-server started
 * before the file's tests and stopped after them. Each entry opens a fresh store.
 */
export function useJobStores(): Array<[string, () => Promise<JobStore>]> {
  let redis: TestRedis | undefined;
  beforeAll(async () => {
    redis = await startTestRedis();
  });
  afterAll(async () => redis?.stop());
  return [
    ['memory', async () => new MemoryJobStore()],
    [
      'redis',
      () => {
        if (redis === undefined) throw new Error('redis-server is not started yet: open stores from a test');
        return connectRedisJobStore(redis.url, { ttlMs: 60_000 });
      },
    ],
  ];
}
