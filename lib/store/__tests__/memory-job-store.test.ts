import { describe, expect, it } from 'vitest';
import { newLeaseToken } from '../job-id.js';
import { MemoryJobStore } from '../memory-job-store.js';
import { claimWork, newJob, urls } from './store-fixtures.js';
import { getJobStatus } from '../../factory/jobs/job-control.js';
import { MAX_CLAIMS_WITHOUT_PROGRESS } from '../../factory/jobs/stall-policy.js';

describe('memory job store', () => {
  it('forgets a job once its TTL has passed', async () => {
    let now = Date.now();
    const store = new MemoryJobStore({ ttlMs: 1_000, now: () => now });
    const job = newJob(['https://example.com/a.xml']);
    job.meta.createdAt = new Date(now).toISOString();
    await store.createJob(job);
    now += 999;
    expect((await getJobStatus(store, job.meta.jobId)).state).toBe('running');
    now += 1;
    await expect(getJobStatus(store, job.meta.jobId)).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('expires leases by its clock', async () => {
    let now = Date.now();
    const store = new MemoryJobStore({ now: () => now });
    const job = newJob(['https://example.com/a.xml']);
    await store.createJob(job);
    const work = await claimWork(store, job.meta.jobId, 500);
    expect((await store.claim(job.meta.jobId, { token: newLeaseToken(), leaseMs: 500, maxClaims: MAX_CLAIMS_WITHOUT_PROGRESS })).type).toBe('wait');
    now += 500;
    expect(await claimWork(store, job.meta.jobId)).toMatchObject({ workId: work.workId });
  });

  it('frees a shard dropped once applied, and nothing else', async () => {
    const store = new MemoryJobStore();
    const job = newJob(['https://example.com/a.xml']);
    await store.createJob(job);
    const work = await claimWork(store, job.meta.jobId);
    const commit = { workId: work.workId, token: work.token };
    expect(await store.commitShard(job.meta.jobId, { ...commit, offset: 0, entries: urls('https://example.com/p', 3) })).toMatchObject({ shard: 0 });
    expect(await store.commitShard(job.meta.jobId, { ...commit, offset: 3, entries: urls('https://example.com/q', 2) })).toMatchObject({ shard: 1 });
    await store.dropShard(job.meta.jobId, 0);
    expect(await store.readShard(job.meta.jobId, 0)).toBeNull();
    expect(await store.readShard(job.meta.jobId, 1)).toHaveLength(2);
    expect((await getJobStatus(store, job.meta.jobId)).shardsWritten).toBe(2);
  });
});

describe('memory job store over a long run', () => {
  it('frees expired jobs nobody asks about again, on its next use, without a timer', async () => {
    let now = Date.now();
    const store = new MemoryJobStore({ ttlMs: 1_000, now: () => now });
    const old = [newJob(['https://example.com/a.xml']), newJob(['https://example.com/b.xml'])];
    for (const job of old) {
      job.meta.createdAt = new Date(now).toISOString();
      await store.createJob(job);
    }
    expect(store.size).toBe(2);
    now += 1_000;
    const fresh = newJob(['https://example.com/c.xml']);
    fresh.meta.createdAt = new Date(now).toISOString();
    await store.createJob(fresh);
    expect(store.size).toBe(1);
    expect((await getJobStatus(store, fresh.meta.jobId)).state).toBe('running');
  });
});
