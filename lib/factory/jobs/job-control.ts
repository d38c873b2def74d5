import type { JobStore } from '../../store/job-store.js';
import type { JobStatus, ShardEntry } from '../../core/types.js';
import { jobStatusOf } from './job-status.js';

/** Stops a job: it answers `stopped` at once, and running slices halt at their next store step. */
export async function stopJob(store: JobStore, jobId: string): Promise<JobStatus> {
  return jobStatusOf(jobId, await store.stop(jobId));
}

/** Retries a stalled job: the work it is stalled on may be claimed again (after the site was fixed, say); the next slices run it. */
export async function retryStalledJob(store: JobStore, jobId: string): Promise<JobStatus> {
  await store.retryStalled(jobId);
  return getJobStatus(store, jobId);
}

/** A job's status (`not_found` for an unknown id, `bad_request` for a malformed one). */
export async function getJobStatus(store: JobStore, jobId: string): Promise<JobStatus> {
  return jobStatusOf(jobId, await store.readStatus(jobId));
}

/** The URLs of shard `n` (0-based, below `shardsWritten`), or null when there is no such shard. */
export async function readJobShard(store: JobStore, jobId: string, n: number): Promise<{ jobId: string; shard: number; urls: string[] } | null> {
  const entries = await store.readShard(jobId, n);
  return entries === null ? null : { jobId, shard: n, urls: entries.map((entry) => entry.url) };
}

/** The entries of shard `n` (URL, lastmod, changefreq, priority, source sitemap), or null when there is no such shard. */
export async function readJobShardEntries(store: JobStore, jobId: string, n: number): Promise<{ jobId: string; shard: number; entries: ShardEntry[] } | null> {
  const entries = await store.readShard(jobId, n);
  return entries === null ? null : { jobId, shard: n, entries };
}
