import type { JobStore } from '../../../store/job-store.js';

/** Where a simulated crash hits: the `nth` store call (of `op`, or of any op), before it, after it, or as an abort. */
export interface KillPlan {
  op?: keyof JobStore;
  nth: number;
  /** before: the request never arrives; after: it is applied but the reply is lost; abort: the slice's signal fires. */
  mode: 'before' | 'after' | 'abort';
  controller?: AbortController;
}

/** Thrown by a FaultyStore at its kill point and on every call after it (the process is "dead"). */
export class KilledError extends Error {
  override name = 'KilledError';
}

/** Wraps a store and crashes at a planned call: a process killed mid-slice, lease and all left behind. */
export class FaultyStore implements JobStore {
  readonly kind;
  private calls = 0;
  dead = false;

  constructor(
    private readonly inner: JobStore,
    private readonly plan: KillPlan | null,
  ) {
    this.kind = inner.kind;
  }

  private async call<T>(op: keyof JobStore, run: () => Promise<T>): Promise<T> {
    if (this.dead) throw new KilledError('process is dead');
    const hit = this.plan && (this.plan.op === undefined || this.plan.op === op) && ++this.calls === this.plan.nth;
    if (!hit || !this.plan) return run();
    if (this.plan.mode === 'abort') {
      this.plan.controller?.abort(new Error('killed by plan'));
      return run();
    }
    if (this.plan.mode === 'before') this.dead = true;
    if (this.dead) throw new KilledError(`killed before ${op}`);
    const result = await run();
    this.dead = true;
    throw new KilledError(`killed after ${op} (${JSON.stringify(result).slice(0, 80)})`);
  }

  createJob: JobStore['createJob'] = (job) => this.call('createJob', () => this.inner.createJob(job));
  getMeta: JobStore['getMeta'] = (jobId) => this.call('getMeta', () => this.inner.getMeta(jobId));
  readStatus: JobStore['readStatus'] = (jobId) => this.call('readStatus', () => this.inner.readStatus(jobId));
  claim: JobStore['claim'] = (jobId, request) => this.call('claim', () => this.inner.claim(jobId, request));
  commitShard: JobStore['commitShard'] = (jobId, request) => this.call('commitShard', () => this.inner.commitShard(jobId, request));
  enqueue: JobStore['enqueue'] = (jobId, request) => this.call('enqueue', () => this.inner.enqueue(jobId, request));
  finishWork: JobStore['finishWork'] = (jobId, request) => this.call('finishWork', () => this.inner.finishWork(jobId, request));
  finishMany: JobStore['finishMany'] = (jobId, requests) => this.call('finishMany', () => this.inner.finishMany(jobId, requests));
  release: JobStore['release'] = (jobId, workId, token) => this.call('release', () => this.inner.release(jobId, workId, token));
  renew: JobStore['renew'] = (jobId, request) => this.call('renew', () => this.inner.renew(jobId, request));
  visit: JobStore['visit'] = (jobId, workId, key) => this.call('visit', () => this.inner.visit(jobId, workId, key));
  retryStalled: JobStore['retryStalled'] = (jobId) => this.call('retryStalled', () => this.inner.retryStalled(jobId));
  claimSlice: JobStore['claimSlice'] = (jobId, slice) => this.call('claimSlice', () => this.inner.claimSlice(jobId, slice));
  releaseSlice: JobStore['releaseSlice'] = (jobId, slice) => this.call('releaseSlice', () => this.inner.releaseSlice(jobId, slice));
  lastSlice: JobStore['lastSlice'] = (jobId) => this.call('lastSlice', () => this.inner.lastSlice(jobId));
  stop: JobStore['stop'] = (jobId) => this.call('stop', () => this.inner.stop(jobId));
  readShard: JobStore['readShard'] = (jobId, n) => this.call('readShard', () => this.inner.readShard(jobId, n));
  dropShard: JobStore['dropShard'] = (jobId, n) => this.call('dropShard', () => this.inner.dropShard(jobId, n));
  seedPrevious: JobStore['seedPrevious'] = (jobId, validators) => this.call('seedPrevious', () => this.inner.seedPrevious(jobId, validators));
  readPrevious: JobStore['readPrevious'] = (jobId, key) => this.call('readPrevious', () => this.inner.readPrevious(jobId, key));
  readResync: JobStore['readResync'] = (jobId) => this.call('readResync', () => this.inner.readResync(jobId));
  readReports: JobStore['readReports'] = (jobId) => this.call('readReports', () => this.inner.readReports(jobId));
  deleteJob: JobStore['deleteJob'] = (jobId) => this.call('deleteJob', () => this.inner.deleteJob(jobId));
  listJobIds: JobStore['listJobIds'] = (cursor, count) => this.call('listJobIds', () => this.inner.listJobIds(cursor, count));
  close: JobStore['close'] = async () => {};
}
