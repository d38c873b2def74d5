import type { JobState } from '../core/types.js';
import { Frontier, urlLimitError } from '../core/frontier.js';
import { Fifo } from '../utils/fifo.js';
import type { ShardShelf } from './shard-shelf.js';
import {
  MAX_CYCLES_KEPT,
  MAX_ERRORS_KEPT,
  type ClaimRequest,
  type ClaimResult,
  type CommitRequest,
  type CommitResult,
  type FinishRequest,
  type FinishResult,
  type QueuedWork,
  type RenewRequest,
  type VisitResult,
} from './job-store.js';
import {
  parseJsonRecord,
  serializeCycle,
  serializeError,
  serializeReport,
  serializeShard,
  serializeValidator,
  WorkItemSchema,
  type RawStatusParts,
} from './records.js';

// Names one commit of one claim: a retry of the same commit (lost reply) finds it recorded.
const commitMark = ({ token, offset }: CommitRequest): string => `${token}:${offset}:`;

/** Counters and state of one in-memory job; the same fields as the Redis status hash. */
export interface MemoryCounters {
  state: JobState;
  urlsFound: number;
  shardsWritten: number;
  sitemapsDone: number;
  roots: number;
  rootsFailed: number;
  errorCount: number;
  nextId: number;
  maxSitemaps: number;
  maxUrls: number;
  createdAt: string;
  updatedAt: string;
  expiresAt: number;
  duplicates: number;
  cycleCount: number;
}

/**
 * One job held in memory, step for step what the Lua scripts do to the Redis keys (scripts/job-scripts.ts):
 * each method runs synchronously, which makes it atomic in one process. Records stay JSON strings so they
 * are validated on the way out exactly like Redis records.
 */
export class MemoryJob {
  readonly pending = new Fifo<string>();
  readonly active = new Set<string>();
  readonly items = new Map<string, string>();
  readonly offsets = new Map<string, number>();
  readonly commits = new Map<string, string>();
  /** The visited set, roots and URL count, decided as the walk decides them. */
  readonly frontier: Frontier;
  readonly errors: string[] = [];
  readonly cycles: string[] = [];
  /** Per work: claims since its offset last moved, children it queued (the `progress` hash on Redis). */
  readonly progress = new Map<string, { claims: number; added: number }>();
  readonly leases = new Map<string, { token: string; expiresAt: number }>();
  /** Validators kept for the next run (identity key -> JSON), and the URLs of sitemaps found unchanged. */
  readonly validators = new Map<string, string>();
  readonly unchanged = new Set<string>();
  /** Each finished sitemap's report, serialized, by work id (as the Redis hash keeps them). */
  readonly reports = new Map<string, string>();
  /** The previous run's validators this job was given (identity key -> JSON). */
  readonly previous = new Map<string, string>();
  /** Which work added each redirect target to the visited set (the `redirect:` keys on Redis). */
  readonly redirects = new Map<string, string>();
  /** The last queued slice number claimed (the status hash's `slices` on Redis). */
  slices = 0;

  constructor(
    readonly meta: string,
    readonly counters: MemoryCounters,
    /** Shard JSON by number: the first megabytes in memory, the rest spilled to a temporary file. */
    readonly shards: ShardShelf,
  ) {
    this.frontier = new Frontier({ maxSitemaps: counters.maxSitemaps, maxUrls: counters.maxUrls }, counters);
  }

  /** Adds new work through the visited set (the ENQUEUE script); what an active `workId` adds is counted with it and is its progress. */
  enqueueFor(items: QueuedWork[], roots: boolean, workId: string | undefined): { added: number; duplicates: number; rejected: number; workAdded: number } {
    const counts = this.enqueue(items, roots);
    if (workId === undefined || !this.active.has(workId)) return { ...counts, workAdded: 0 };
    const progress = this.progressOf(workId);
    progress.added += counts.added;
    if (counts.added > 0) progress.claims = 0;
    return { ...counts, workAdded: progress.added };
  }

  /** Adds new work through the visited set (the `enqueue` Lua function). */
  enqueue(items: QueuedWork[], roots: boolean): { added: number; duplicates: number; rejected: number } {
    let [added, duplicates, rejected] = [0, 0, 0];
    for (const { key, item } of items) {
      const decision = this.frontier.admit(key);
      if (decision === 'seen') duplicates += 1;
      else if (decision === 'over_limit') rejected += 1;
      else {
        const id = String(++this.counters.nextId);
        this.items.set(id, JSON.stringify(item));
        this.pending.push(id);
        added += 1;
      }
    }
    if (roots) this.frontier.addRoots(added);
    return { added, duplicates, rejected };
  }

  /** Claims expired or released work first, then the frontier (CLAIM script). */
  claim(request: ClaimRequest, now: number): ClaimResult {
    if (this.counters.state !== 'running') return { type: 'halted', state: this.counters.state };
    let [free, leased, stalled] = [null as string | null, 0, 0];
    for (const id of this.active) {
      const holder = this.leaseHolder(id, now);
      if (holder === request.token) return this.claimed(id, request.token);
      if (holder !== null) leased += 1;
      else if (this.progressOf(id).claims >= request.maxClaims) stalled += 1;
      else free ??= id;
    }
    const id = free ?? this.pending.shift() ?? null;
    if (id === null) return this.noWork(leased, stalled);
    this.active.add(id);
    this.leases.set(id, { token: request.token, expiresAt: now + Math.ceil(request.leaseMs) });
    this.progressOf(id).claims += 1;
    return this.claimed(id, request.token);
  }

  /** Shard, offset and counters in one step, after lease and offset checks (COMMIT_SHARD script). */
  commit(request: CommitRequest, now: number): CommitResult {
    const last = this.commits.get(request.workId);
    const mark = commitMark(request);
    if (last?.startsWith(mark)) return { type: 'duplicate', shard: Number(last.slice(mark.length)) };
    return this.commitRefusal(request, now) ?? this.writeShard(request);
  }

  /** Ends claimed work with its errors and, if given, its last shard (FINISH_WORK script). */
  finish(request: FinishRequest, now: number): FinishResult {
    const { workId, token, shard } = request;
    if (!this.active.has(workId)) return this.finished('already', request, now);
    if (this.leaseHolder(workId, now) !== token) return { type: 'lease_lost' };
    if (shard !== undefined) {
      const commit = { workId, token, ...shard };
      if (!this.commits.get(workId)?.startsWith(commitMark(commit))) {
        if (this.commitRefusal(commit, now) !== null) return { type: 'shard_refused' };
        this.writeShard(commit);
      }
    }
    this.active.delete(workId);
    for (const map of [this.leases, this.items, this.offsets, this.commits, this.progress]) map.delete(workId);
    if (request.countSitemap) this.counters.sitemapsDone += 1;
    this.counters.duplicates += request.duplicates ?? 0;
    if (request.cycle && ++this.counters.cycleCount <= MAX_CYCLES_KEPT) this.cycles.push(serializeCycle(request.cycle));
    this.keepResync(request.resync);
    if (request.report) this.reports.set(workId, serializeReport(request.report));
    this.pushErrors(request.errors.map(serializeError));
    this.applyFailure(request);
    this.settle();
    return this.finished('finished', request, now);
  }

  // A finish's reply, with the next claim when one was asked for.
  private finished(type: 'finished' | 'already', request: FinishRequest, now: number): FinishResult {
    const { state } = this.counters;
    return request.claim === undefined ? { type, state } : { type, state, next: this.claim(request.claim, now) };
  }

  // Why a commit may not be written (job halted, lease gone, offset moved, over maxUrls), or null when it may.
  private commitRefusal(request: CommitRequest, now: number): CommitResult | null {
    const { workId, token, offset, entries } = request;
    if (this.counters.state !== 'running') return { type: 'halted', state: this.counters.state };
    if (this.leaseHolder(workId, now) !== token) return this.lapsed(workId, { type: 'lease_lost' });
    const recorded = this.offsets.get(workId) ?? 0;
    if (recorded !== offset) return { type: 'offset_mismatch', offset: recorded };
    const allowance = this.frontier.urlAllowance(entries.length);
    return allowance < entries.length ? { type: 'over_limit', allowance } : null;
  }

  private writeShard(request: CommitRequest): CommitResult {
    const { workId, offset, entries } = request;
    const mark = commitMark(request);
    const shard = this.counters.shardsWritten++;
    this.shards.set(shard, serializeShard(entries));
    this.offsets.set(workId, offset + entries.length);
    this.commits.set(workId, mark + shard);
    this.progressOf(workId).claims = 0;
    if (this.frontier.addUrls(entries.length)) this.stopAtUrlLimit();
    return { type: 'committed', shard, urlsFound: this.counters.urlsFound };
  }

  private keepResync(resync: FinishRequest['resync']): void {
    if (resync === undefined) return;
    if (resync.validator === null) this.validators.delete(resync.key);
    else this.validators.set(resync.key, serializeValidator(resync.validator));
    if (resync.unchanged) this.unchanged.add(resync.url);
  }

  /** Compare-and-delete of a lease (RELEASE script). */
  release(workId: string, token: string, now: number): boolean {
    if (this.leaseHolder(workId, now) !== token) return false;
    this.leases.delete(workId);
    return true;
  }

  /** Adds a redirect's final URL to the visited set (VISIT script). */
  visit(workId: string, key: string): VisitResult {
    if (this.redirects.get(key) === workId) return 'own';
    if (this.frontier.visit(key) === 'seen') return 'seen';
    this.redirects.set(key, workId);
    return 'added';
  }

  /** Clears the claims-without-progress of every active work (RETRY_STALLED script). */
  retryStalled(): number {
    let cleared = 0;
    for (const id of this.active) {
      const progress = this.progress.get(id);
      if (progress && progress.claims > 0) [progress.claims, cleared] = [0, cleared + 1];
    }
    return cleared;
  }

  /** Compare-and-renew of a lease (RENEW script). */
  renew(request: RenewRequest, now: number): boolean {
    const lease = this.leases.get(request.workId);
    if (this.leaseHolder(request.workId, now) !== request.token || !lease) return this.lapsed(request.workId, false);
    lease.expiresAt = now + Math.ceil(request.leaseMs);
    return true;
  }

  /** A holder whose lease lapsed came back, so it was alive: the takeovers of its work are not claims without progress (the `lapsed` Lua function). */
  private lapsed<T>(workId: string, reply: T): T {
    const progress = this.progress.get(workId);
    if (progress) progress.claims = 0;
    return reply;
  }

  private leaseHolder(id: string, now: number): string | null {
    const lease = this.leases.get(id);
    if (!lease || lease.expiresAt <= now) return null;
    return lease.token;
  }

  /** The status as stored (the STATUS script): counters, frontier, claims of the active work, kept errors and cycles. */
  statusParts(now: number): RawStatusParts {
    let [leased, fewestClaims, mostClaimed] = [0, -1, null as RawStatusParts['mostClaimed']];
    for (const id of this.active) {
      if (this.leaseHolder(id, now) !== null) leased += 1;
      const { claims } = this.progressOf(id);
      if (fewestClaims < 0 || claims < fewestClaims) fewestClaims = claims;
      if (claims > (mostClaimed?.claims ?? -1)) mostClaimed = { item: this.items.get(id) ?? '', offset: this.offsets.get(id) ?? 0, claims };
    }
    const { state, urlsFound, shardsWritten, sitemapsDone, duplicates, cycleCount, createdAt, updatedAt } = this.counters;
    const frontier = { pending: this.pending.size, active: this.active.size, leased, fewestClaims: Math.max(fewestClaims, 0), mostClaimed };
    return {
      state,
      urlsFound,
      shardsWritten,
      sitemapsDone,
      duplicates,
      cycleCount,
      createdAt,
      updatedAt,
      ...frontier,
      errors: this.errors,
      cycles: this.cycles,
    };
  }

  private progressOf(id: string): { claims: number; added: number } {
    let progress = this.progress.get(id);
    if (!progress) this.progress.set(id, (progress = { claims: 0, added: 0 }));
    return progress;
  }

  private claimed(id: string, token: string): ClaimResult {
    const item = parseJsonRecord(this.items.get(id) ?? '', WorkItemSchema, `memory item ${id}`);
    const { claims, added } = this.progressOf(id);
    return { type: 'claimed', work: { workId: id, token, item, offset: this.offsets.get(id) ?? 0, added, claims } };
  }

  private noWork(leased: number, stalled: number): ClaimResult {
    if (leased > 0) return { type: 'wait', active: leased };
    if (stalled > 0) return { type: 'stalled', works: stalled };
    this.settle();
    return { type: 'done' };
  }

  private applyFailure({ failure, fallback }: FinishRequest): void {
    if (this.counters.state !== 'running') return;
    if (failure === 'job') this.counters.state = 'failed';
    if (failure !== 'root') return;
    this.counters.rootsFailed += 1;
    if (!this.frontier.allRootsFailed) return;
    if (!fallback || this.enqueue([fallback], false).added === 0) this.counters.state = 'failed';
  }

  private stopAtUrlLimit(): void {
    this.counters.state = 'done';
    this.pushErrors([serializeError(urlLimitError(this.frontier.urlLimit))]);
  }

  /** Appends errors, keeping at most MAX_ERRORS_KEPT but counting all. */
  pushErrors(list: string[]): void {
    for (const json of list) {
      if (this.counters.errorCount < MAX_ERRORS_KEPT) this.errors.push(json);
      this.counters.errorCount += 1;
    }
  }

  /** Done once nothing is pending or leased. */
  settle(): void {
    if (this.counters.state === 'running' && this.pending.size === 0 && this.active.size === 0) this.counters.state = 'done';
  }
}
