import { resolveWalkOptions, type WalkOptionsInput } from '../../core/limits.js';
import type { ShardEntry } from '../../core/types.js';
import { newJobId, newLeaseToken } from '../job-id.js';
import type { ClaimedWork, JobStore, NewJob, QueuedWork } from '../job-store.js';
import { MAX_CLAIMS_WITHOUT_PROGRESS } from '../../factory/jobs/stall-policy.js';

/** A sitemap work item keyed by its URL, as the runner queues it. */
export function sitemapWork(url: string, depth = 0, parent: string | null = null): QueuedWork {
  return { key: url, item: { type: 'sitemap', ref: { url, depth, parent } } };
}

/** A new job over the given root sitemaps. */
export function newJob(urls: string[], options: WalkOptionsInput = {}): NewJob {
  return {
    meta: { jobId: newJobId(), rootUrl: null, sitemapUrls: urls, options: resolveWalkOptions(options), createdAt: new Date().toISOString() },
    items: urls.map((url) => sitemapWork(url)),
    roots: true,
  };
}

/** Creates a job in `store` and returns its id. */
export async function createdJob(store: JobStore, urls: string[], options: WalkOptionsInput = {}): Promise<string> {
  const job = newJob(urls, options);
  await store.createJob(job);
  return job.meta.jobId;
}

/** Claims work with a fresh token, failing the test if none is handed out. */
export async function claimWork(store: JobStore, jobId: string, leaseMs = 10_000): Promise<ClaimedWork> {
  const result = await store.claim(jobId, { token: newLeaseToken(), leaseMs, maxClaims: MAX_CLAIMS_WITHOUT_PROGRESS });
  if (result.type !== 'claimed') throw new Error(`expected work, got ${result.type}`);
  return result.work;
}

/** `n` shard entries of distinct URLs with a prefix. */
export function urls(prefix: string, n: number): ShardEntry[] {
  return entriesOf(Array.from({ length: n }, (_, i) => `https://example.com/${prefix}/${i}`));
}

/** Shard entries of these URLs, as one sitemap would give them. */
export function entriesOf(list: string[]): ShardEntry[] {
  return list.map((url, i) => ({
    url,
    lastmod: i % 2 ? '2026-01-02' : null,
    changefreq: i % 3 ? 'daily' : null,
    priority: i % 5 ? 0.5 : null,
    source: 'https://example.com/sitemap.xml',
    locale: null,
  }));
}

/** Waits `ms` milliseconds (lease expiry). */
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Claims the job's first work `times` times under leases left to lapse, as workers killed mid-read before committing anything would. */
export async function claimAndAbandon(store: JobStore, jobId: string, times: number): Promise<void> {
  for (let i = 0; i < times; i += 1) {
    await claimWork(store, jobId, 30);
    await sleep(50);
  }
}
