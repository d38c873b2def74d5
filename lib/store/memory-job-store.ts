import { SitemapReportSchema, SitemapValidatorSchema, type ShardEntry, type SitemapReport, type SitemapValidator, type Validators } from '../core/types.js';
import { createLogger } from '../utils/logger.js';
import { assertJobId } from './job-id.js';
import {
  DEFAULT_JOB_TTL_MS,
  type ClaimRequest,
  type ClaimResult,
  type CommitRequest,
  type CommitResult,
  type EnqueueRequest,
  type EnqueueResult,
  type FinishRequest,
  type FinishResult,
  type JobResync,
  type JobStore,
  type NewJob,
  type RenewRequest,
  type VisitResult,
} from './job-store.js';
import { MemoryJob, type MemoryCounters } from './memory-job.js';
import { SHARD_MEMORY_CHARS, ShardShelf } from './shard-shelf.js';
import { parseJsonRecord, parseMeta, serializeMeta, serializeValidator, ShardSchema, statusPartsFrom, type JobMeta, type StatusParts } from './records.js';
import { jobNotFound, StoreError } from './store-errors.js';

const log = createLogger('store:memory');

/** Options of the in-memory store. */
export interface MemoryJobStoreOptions {
  ttlMs?: number;
  /** Clock, for tests of expiry. */
  now?: () => number;
  /** Shard text each job keeps in memory before it spills to a temporary file (default SHARD_MEMORY_CHARS). */
  shardMemoryChars?: number;
}

/** The embedded default: jobs in this process only, same semantics as Redis, gone on restart. */
export class MemoryJobStore implements JobStore {
  readonly kind = 'memory' as const;
  private readonly jobs = new Map<string, MemoryJob>();
  private readonly ttlMs: number;
  private readonly now: () => number;
  private nextSweepAt: number;
  private readonly shardMemoryChars: number;

  constructor(options: MemoryJobStoreOptions = {}) {
    this.ttlMs = options.ttlMs ?? DEFAULT_JOB_TTL_MS;
    this.now = options.now ?? Date.now;
    this.shardMemoryChars = options.shardMemoryChars ?? SHARD_MEMORY_CHARS;
    this.nextSweepAt = this.now() + this.sweepIntervalMs();
    log.warn({ event: 'store_memory' }, 'in-memory job store: jobs do not survive a restart');
  }

  async createJob(job: NewJob): Promise<void> {
    const jobId = assertJobId(job.meta.jobId);
    const meta = serializeMeta(job.meta);
    const existing = this.find(jobId);
    if (existing) {
      if (existing.meta === meta) return;
      throw new StoreError('foreign', `job ${jobId} already exists with other meta`, { key: jobId });
    }
    const created = new MemoryJob(meta, this.counters(job), new ShardShelf(this.shardMemoryChars));
    created.enqueue(job.items, job.roots);
    this.jobs.set(jobId, created);
    log.info({ event: 'job_created', jobId, items: job.items.length }, 'job created');
  }

  async getMeta(jobId: string): Promise<JobMeta> {
    return parseMeta(this.get(jobId).meta, jobId, `memory meta ${jobId}`);
  }

  async readStatus(jobId: string): Promise<StatusParts> {
    return statusPartsFrom(this.get(jobId).statusParts(this.now()), `memory ${jobId}`);
  }

  async claim(jobId: string, request: ClaimRequest): Promise<ClaimResult> {
    const job = this.get(jobId);
    const result = job.claim(request, this.now());
    if (result.type === 'done') this.touch(job);
    return result;
  }

  async commitShard(jobId: string, request: CommitRequest): Promise<CommitResult> {
    const job = this.get(jobId);
    const result = job.commit(request, this.now());
    if (result.type === 'committed') this.touch(job);
    return result;
  }

  async enqueue(jobId: string, request: EnqueueRequest): Promise<EnqueueResult> {
    const job = this.get(jobId);
    if (job.counters.state !== 'running') return { type: 'halted', state: job.counters.state };
    const counts = job.enqueueFor(request.items, request.roots, request.workId);
    this.touch(job);
    return { type: 'enqueued', ...counts };
  }

  async finishWork(jobId: string, request: FinishRequest): Promise<FinishResult> {
    const job = this.get(jobId);
    const result = job.finish(request, this.now());
    if (result.type === 'finished') this.touch(job);
    return result;
  }

  async finishMany(jobId: string, requests: readonly FinishRequest[]): Promise<FinishResult[]> {
    const job = this.get(jobId);
    const results = requests.map((request) => job.finish(request, this.now()));
    if (results.some((result) => result.type === 'finished')) this.touch(job);
    return results;
  }

  async release(jobId: string, workId: string, token: string): Promise<boolean> {
    return this.get(jobId).release(workId, token, this.now());
  }

  async renew(jobId: string, request: RenewRequest): Promise<boolean> {
    return this.get(jobId).renew(request, this.now());
  }

  async visit(jobId: string, workId: string, key: string): Promise<VisitResult> {
    return this.get(jobId).visit(workId, key);
  }

  async retryStalled(jobId: string): Promise<number> {
    return this.get(jobId).retryStalled();
  }

  async claimSlice(jobId: string, slice: number): Promise<boolean> {
    const job = this.get(jobId);
    if (job.counters.state !== 'running' || job.slices >= slice) return false;
    job.slices = slice;
    return true;
  }

  async releaseSlice(jobId: string, slice: number): Promise<void> {
    const job = this.get(jobId);
    if (job.slices === slice) job.slices = slice - 1;
  }

  async lastSlice(jobId: string): Promise<number> {
    return this.get(jobId).slices;
  }

  async stop(jobId: string): Promise<StatusParts> {
    const job = this.get(jobId);
    if (job.counters.state === 'running') {
      job.counters.state = 'stopped';
      this.touch(job);
    }
    log.info({ event: 'job_stop', jobId }, 'job stop requested');
    return this.readStatus(jobId);
  }

  async listJobIds(cursor: string, count: number): Promise<{ jobIds: string[]; next: string | null }> {
    const ids = [...this.jobs.keys()].filter((jobId) => this.find(jobId) !== null).sort();
    const from = /^\d+$/.test(cursor) ? Number(cursor) : 0;
    const jobIds = ids.slice(from, from + count);
    return { jobIds, next: from + count < ids.length ? String(from + count) : null };
  }

  async deleteJob(jobId: string): Promise<boolean> {
    const found = this.find(assertJobId(jobId)) !== null;
    this.forget(jobId);
    log.info({ event: 'job_deleted', jobId, found }, 'job delete requested');
    return found;
  }

  async seedPrevious(jobId: string, validators: Validators): Promise<void> {
    const job = this.get(jobId);
    for (const [key, validator] of Object.entries(validators)) job.previous.set(key, serializeValidator(validator));
  }

  async readPrevious(jobId: string, key: string): Promise<SitemapValidator | null> {
    const raw = this.get(jobId).previous.get(key);
    return raw === undefined ? null : parseJsonRecord(raw, SitemapValidatorSchema, `memory previous ${jobId}/${key}`);
  }

  async readResync(jobId: string): Promise<JobResync> {
    const job = this.find(assertJobId(jobId));
    const entries = [...(job?.validators ?? [])].map(
      ([key, raw]) => [key, parseJsonRecord(raw, SitemapValidatorSchema, `memory validator ${jobId}/${key}`)] as const,
    );
    return { validators: Object.fromEntries(entries), unchanged: [...(job?.unchanged ?? [])] };
  }

  async readReports(jobId: string): Promise<SitemapReport[]> {
    const job = this.find(assertJobId(jobId));
    return [...(job?.reports ?? [])].map(([workId, raw]) => parseJsonRecord(raw, SitemapReportSchema, `memory report ${jobId}/${workId}`));
  }

  async readShard(jobId: string, n: number): Promise<ShardEntry[] | null> {
    const raw = this.get(jobId).shards.get(n);
    return raw === undefined ? null : parseJsonRecord(raw, ShardSchema, `memory shard ${jobId}/${n}`);
  }

  async dropShard(jobId: string, n: number): Promise<void> {
    this.find(assertJobId(jobId))?.shards.delete(n);
  }

  async close(): Promise<void> {
    for (const jobId of [...this.jobs.keys()]) this.forget(jobId);
  }

  // Every way a job goes ends here: its spilled shards' file is removed with it.
  private forget(jobId: string): void {
    this.jobs.get(jobId)?.shards.clear();
    this.jobs.delete(jobId);
  }

  private counters(job: NewJob): MemoryCounters {
    const { maxSitemaps, maxUrls } = job.meta.options;
    const createdAt = job.meta.createdAt;
    const zero = { urlsFound: 0, shardsWritten: 0, sitemapsDone: 0, roots: 0, rootsFailed: 0, errorCount: 0, nextId: 0, duplicates: 0, cycleCount: 0 };
    return {
      state: 'running',
      ...zero,
      maxSitemaps,
      maxUrls: Number.isFinite(maxUrls) ? maxUrls : 0,
      createdAt,
      updatedAt: createdAt,
      expiresAt: Date.parse(createdAt) + this.ttlMs,
    };
  }

  /** Jobs held right now (expired ones count until the next sweep). */
  get size(): number {
    return this.jobs.size;
  }

  // Sweeps run on access, at most once per interval: no timer keeps the process alive, and a long-running
  // `serve` frees jobs nobody asks about again.
  private sweepIntervalMs(): number {
    return Math.min(this.ttlMs, 60_000);
  }

  private sweep(now: number): void {
    if (now < this.nextSweepAt) return;
    this.nextSweepAt = now + this.sweepIntervalMs();
    let freed = 0;
    for (const [jobId, job] of this.jobs) {
      if (job.counters.expiresAt > now) continue;
      this.forget(jobId);
      freed += 1;
    }
    if (freed > 0) log.info({ event: 'jobs_expired', freed, kept: this.jobs.size }, 'expired jobs freed');
  }

  // A job past its expiry is gone, as its Redis keys would be.
  private find(jobId: string): MemoryJob | null {
    this.sweep(this.now());
    const job = this.jobs.get(jobId);
    if (job && job.counters.expiresAt <= this.now()) this.forget(jobId);
    return this.jobs.get(jobId) ?? null;
  }

  private get(jobId: string): MemoryJob {
    const job = this.find(assertJobId(jobId));
    if (!job) throw jobNotFound(jobId);
    return job;
  }

  private touch(job: MemoryJob): void {
    job.counters.updatedAt = new Date(this.now()).toISOString();
  }
}
