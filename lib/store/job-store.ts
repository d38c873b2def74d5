import type { JobCycle, JobState, ReportedError, ShardEntry, SitemapReport, SitemapValidator, Validators } from '../core/types.js';
import type { JobMeta, JobMetaInput, StatusParts, WorkItem } from './records.js';

/** URLs a shard holds at most; the runner cuts a sitemap's URLs into shards of this size. */
export const SHARD_SIZE = 1000;

/** How long every key of a job lives (from creation): 7 days. */
export const DEFAULT_JOB_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** Errors kept per job; later ones are counted but not stored, so a broken site cannot fill the store. */
export const MAX_ERRORS_KEPT = 1000;

/** Cycles kept per job, like errors: later ones are counted but not stored. */
export const MAX_CYCLES_KEPT = 1000;

/** Work to add to the frontier; `key` is the sitemap's identity key for the visited set (null: never deduped). */
export interface QueuedWork {
  key: string | null;
  item: WorkItem;
}

/** A new job: its meta, the first work, and whether that work is the job's root sitemaps. */
export interface NewJob {
  meta: JobMetaInput;
  items: QueuedWork[];
  roots: boolean;
}

/**
 * A piece of work held under a lease: resume the sitemap at `offset` URLs already committed; `added` children it
 * queued in earlier passes; `claims` made of it (this one included) since its offset last moved.
 */
export interface ClaimedWork {
  workId: string;
  token: string;
  item: WorkItem;
  offset: number;
  added: number;
  claims: number;
}

/**
 * What a claim found: work, nothing free right now (others hold leases), a finished job, a halted one, or only
 * work claimed `maxClaims` times without progress left (`works` of it): the job is stalled on it.
 */
export type ClaimResult =
  | { type: 'claimed'; work: ClaimedWork }
  | { type: 'wait'; active: number }
  | { type: 'done' }
  | { type: 'halted'; state: JobState }
  | { type: 'stalled'; works: number };

/**
 * Asks for work under a lease of `leaseMs`; `token` (fresh per claim) makes a retried claim return the same work.
 * Work already claimed `maxClaims` times since its offset last moved is not handed out again (the stall policy's
 * number, lib/factory/jobs/stall-policy.ts): a sitemap that kills or cuts off every pass cannot loop the job.
 */
export interface ClaimRequest {
  token: string;
  leaseMs: number;
  maxClaims: number;
}

/** Adds a shard of `entries` taken at `offset` of the claimed sitemap. */
export interface CommitRequest {
  workId: string;
  token: string;
  offset: number;
  entries: ShardEntry[];
}

/**
 * What a commit did: written as shard N; `duplicate` when this exact commit was already applied (a retry
 * after a lost reply); refused because the lease is gone, the offset moved, maxUrls leaves only
 * `allowance` URLs, or the job is no longer running.
 */
export type CommitResult =
  | { type: 'committed'; shard: number; urlsFound: number }
  | { type: 'duplicate'; shard: number }
  | { type: 'lease_lost' }
  | { type: 'offset_mismatch'; offset: number }
  | { type: 'over_limit'; allowance: number }
  | { type: 'halted'; state: JobState };

/**
 * Adds children (or roots) to the frontier through the visited set. `workId`: the claimed work whose read found
 * them; what it adds is counted with it (`workAdded`) and is progress of that work.
 */
export interface EnqueueRequest {
  items: QueuedWork[];
  roots: boolean;
  workId?: string;
}

/**
 * What an enqueue did: new work added, already-visited skipped, and over maxSitemaps refused; `workAdded`: children
 * queued on behalf of `workId` so far, over all its passes (0 without a workId).
 */
export type EnqueueResult = { type: 'enqueued'; added: number; duplicates: number; rejected: number; workAdded: number } | { type: 'halted'; state: JobState };

/**
 * How a piece of work ended: `root` counts a failed root (once every root failed, the request's `fallback` is queued,
 * or without one the job fails), `job` fails the job at once. The walk policy chooses; the store counts atomically.
 */
export type WorkFailure = 'none' | 'root' | 'job';

/** Ends a claimed piece of work, recording its errors in the same atomic step (so once, even on retry). */
export interface FinishRequest {
  workId: string;
  token: string;
  errors: ReportedError[];
  /** Counts towards sitemapsDone (false for the discovery step). */
  countSitemap: boolean;
  failure: WorkFailure;
  /** With `failure: 'root'`: the work queued instead of failing the job when this was the last root standing. */
  fallback?: QueuedWork;
  /** A sitemap read (or found unchanged): what the next run is given for it, kept in the same step. */
  resync?: SitemapResync;
  /** A sitemap read (or found unchanged): its report, kept for the job's sync to record (`readReports`). */
  report?: SitemapReport;
  /**
   * The work's last shard, committed in the same atomic step (one store round trip for a sitemap that fits in one
   * shard). Checked as `commitShard` checks it; a refusal finishes nothing (`shard_refused`).
   */
  shard?: FinalShard;
  /** Claims the next piece of work in the same step (the reply's `next`), as `claim` would: one round trip per sitemap. */
  claim?: ClaimRequest;
  /** Children this sitemap listed that were already visited (the walk policy's `duplicateChildren`). */
  duplicates?: number;
  /** Set when the sitemap redirected into one already visited (it was not read). */
  cycle?: JobCycle;
}

/** A last shard handed to `finishWork`: `entries` taken at `offset` of the claimed sitemap. */
export interface FinalShard {
  offset: number;
  entries: ShardEntry[];
}

/** What a finished sitemap leaves for incremental re-sync: its validator (by identity key), and whether it was unchanged. */
export interface SitemapResync {
  key: string;
  /** The sitemap's URL as listed: the `source` its shard entries carry. */
  url: string;
  validator: SitemapValidator | null;
  unchanged: boolean;
}

/** What a job leaves for the next run: validators by identity key, and the URLs of sitemaps it found unchanged (their URLs are the previous run's). */
export interface JobResync {
  validators: Validators;
  unchanged: string[];
}

/** Extends a held lease by `leaseMs` from now: the heartbeat of a sitemap being read. */
export interface RenewRequest {
  workId: string;
  token: string;
  leaseMs: number;
}

/** What marking a redirect target visited found: newly added, added earlier by the same work (a resume), or seen before. */
export type VisitResult = 'added' | 'own' | 'seen';

/**
 * What a finish did; `already` when a retry finds the work finished; `shard_refused` when its last shard was refused
 * (halted, offset moved, over maxUrls) and nothing was written: commit it with `commitShard` to learn why. `next` is
 * the claim asked for with the finish.
 */
export type FinishResult = { type: 'finished' | 'already'; state: JobState; next?: ClaimResult } | { type: 'lease_lost' } | { type: 'shard_refused' };

/** Which adapter a store is. */
export type StoreKind = 'memory' | 'redis' | 'upstash';

/**
 * Durable state of resumable discovery jobs. Every method is one atomic step (one Lua script on Redis)
 * and safe to retry after a lost reply. Unknown jobs throw `not_found`, malformed ids `bad_request`,
 * records that do not validate a StoreError (`conflict`).
 */
export interface JobStore {
  readonly kind: StoreKind;
  /** Creates a job with its first work; retrying the same creation is a no-op, another job's id a `conflict`. */
  createJob(job: NewJob): Promise<void>;
  /** The job's meta (options, root), validated. */
  getMeta(jobId: string): Promise<JobMeta>;
  /** The job's status as stored (counters, frontier, kept errors and cycles, validated); lib/factory/jobs builds JobStatus from it. */
  readStatus(jobId: string): Promise<StatusParts>;
  /** Claims one piece of work: an expired lease's work first (it resumes at its offset), then the frontier. */
  claim(jobId: string, request: ClaimRequest): Promise<ClaimResult>;
  /** Writes one shard with the offset advance and counters, after checking lease and offset. */
  commitShard(jobId: string, request: CommitRequest): Promise<CommitResult>;
  /** Adds new work, deduped by the visited set, refusing more than maxSitemaps. */
  enqueue(jobId: string, request: EnqueueRequest): Promise<EnqueueResult>;
  /** Marks claimed work finished (with its errors); the job is done once nothing is pending or leased. */
  finishWork(jobId: string, request: FinishRequest): Promise<FinishResult>;
  /**
   * Finishes several pieces of work in one atomic step (one Lua script on Redis): each request is applied in order as
   * `finishWork` would apply it alone, and its result is at the same index. What a slice's loops finish at once.
   */
  finishMany(jobId: string, requests: readonly FinishRequest[]): Promise<FinishResult[]>;
  /** Gives a lease back early (compare-and-delete), so the work is free at once instead of at expiry. */
  release(jobId: string, workId: string, token: string): Promise<boolean>;
  /** Renews a lease its holder still holds (compare-and-renew); false when it expired or another worker took it. */
  renew(jobId: string, request: RenewRequest): Promise<boolean>;
  /** Adds the identity key of a sitemap's final URL (after redirects) to the visited set on behalf of `workId`. */
  visit(jobId: string, workId: string, key: string): Promise<VisitResult>;
  /** Gives work claimed too often without progress its claims back (an operator's retry of a stalled job); returns how many. */
  retryStalled(jobId: string): Promise<number>;
  /**
   * Claims numbered slice `slice` of a running job for a queue's call (QStash): true when no slice numbered `slice` or
   * above was claimed before; false when it was (a repeated delivery) or the job has ended. Numbers only go up.
   */
  claimSlice(jobId: string, slice: number): Promise<boolean>;
  /** Gives claimed slice `slice` back (its run failed), so the queue's retry of it may claim it again. */
  releaseSlice(jobId: string, slice: number): Promise<void>;
  /** The last slice number claimed (0 before any): a queue numbers the job's next slice after it. */
  lastSlice(jobId: string): Promise<number>;
  /** Stops a running job (a finished or failed one keeps its state); its status parts come back from the same step. */
  stop(jobId: string): Promise<StatusParts>;
  /** A page of the ids of the jobs held, in no set order: `cursor` from the page before (`'0'` first), `next` null at the end. */
  listJobIds(cursor: string, count: number): Promise<{ jobIds: string[]; next: string | null }>;
  /** Removes the job and every key it owns (shards, leases, sealed headers); false when there was no such job. */
  deleteJob(jobId: string): Promise<boolean>;
  /** Gives a job part of the previous run's validators (by identity key), before its first slice; repeatable. */
  seedPrevious(jobId: string, validators: Validators): Promise<void>;
  /** The previous run's validator job `jobId` was given for the sitemap of identity key `key`, or null: read it whole. */
  readPrevious(jobId: string, key: string): Promise<SitemapValidator | null>;
  /** Everything job `jobId` kept for the next run (a sync copies it into the inventory). */
  readResync(jobId: string): Promise<JobResync>;
  /** The report of every sitemap the job finished reading (or found unchanged), in no particular order. */
  readReports(jobId: string): Promise<SitemapReport[]>;
  /** Shard `n` (0-based), or null when it does not exist (not yet written, or expired). */
  readShard(jobId: string, n: number): Promise<ShardEntry[] | null>;
  /**
   * Frees shard `n` early, once its reader holds it for good (the inventory applied it): a store holding shards in this
   * process's memory lets go of them, so a long sync does not hold every URL it found. A shared store (Redis, Upstash)
   * keeps them until the job's keys expire and spends no command on it: other workers may still read them.
   */
  dropShard(jobId: string, n: number): Promise<void>;
  /** Closes connections. */
  close(): Promise<void>;
}
