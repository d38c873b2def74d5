import type { JobStore } from '../store/job-store.js';

/**
 * Shards a slice may write ahead of the inventory applying them. The walk reads loopback sitemaps at 100,000s of URLs
 * a second and PGlite applies a few thousand: unpaced, a slice's shards pile up in the job store (in this process's
 * memory with the memory store) faster than they are applied. Eight keep the sink busy without holding more.
 */
export const SHARDS_AHEAD = 8;

/**
 * Back-pressure between a slice's walk and the sink applying its shards: a commit waits (first come, first served)
 * while `limit` shards are written or being written and not applied yet. The reading that waits pauses its HTTP body
 * and its sitemap's clock (lib/factory/fetch/deadline.ts), and keeps its lease by heartbeat.
 */
export class ShardPacer {
  /** Shards written, or being written, that the sink has not applied. */
  private ahead = 0;
  /** Of those, the ones written: at least one can be read (or was applied and freed by another sink). */
  private readable = 0;
  private released = false;
  private readonly waiting: Array<() => void> = [];
  /** What the sink waits on for the next write: one promise however often it asks. */
  private nextWritten: { promise: Promise<void>; resolve: () => void } | null = null;

  constructor(private readonly limit = SHARDS_AHEAD) {}

  /** Waits for room, then counts a shard about to be written (give it back with `unwritten` if it was not). */
  async admit(): Promise<void> {
    while (!this.released && this.ahead >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.ahead += 1;
  }

  /** A shard admitted was written: the sink may read it. */
  wrote(): void {
    this.readable += 1;
    this.wakeSink();
  }

  /** A shard admitted was not written (refused, a retry's duplicate, a store failure). */
  unwritten(): void {
    this.ahead = Math.max(0, this.ahead - 1);
    this.waiting.shift()?.();
  }

  /**
   * The sink is past a shard (applied, or found gone). Shards other workers wrote are applied too, so the counts are
   * kept from going below zero; `ahead` never exceeds the shards written or being written, so a full pacer always has
   * a write that will land or a shard to read: it cannot wait on itself.
   */
  applied(): void {
    this.readable = Math.max(0, this.readable - 1);
    this.unwritten();
  }

  /** A shard this pacer saw written is not applied yet: a missing shard before it was applied (and freed) by another sink. */
  get hasWritten(): boolean {
    return this.readable > 0;
  }

  /** Resolves at the next write, or at once after `release`. */
  nextWrite(): Promise<void> {
    if (this.released) return Promise.resolve();
    if (this.nextWritten === null) {
      let resolve = () => {};
      const promise = new Promise<void>((done) => (resolve = done));
      this.nextWritten = { promise, resolve };
    }
    return this.nextWritten.promise;
  }

  /** Ends the pacing (the slice ended, or the sink failed): every waiter goes on, and nothing waits from now on. */
  release(): void {
    this.released = true;
    for (const wake of this.waiting.splice(0)) wake();
    this.wakeSink();
  }

  get isReleased(): boolean {
    return this.released;
  }

  private wakeSink(): void {
    this.nextWritten?.resolve();
    this.nextWritten = null;
  }
}

/** Runs `write` under the pacer: admitted first, then counted as written when `isWrite(result)`. */
async function paced<T>(pacer: ShardPacer, write: () => Promise<T>, isWrite: (result: T) => boolean): Promise<T> {
  await pacer.admit();
  let result: T;
  try {
    result = await write();
  } catch (error) {
    pacer.unwritten();
    throw error;
  }
  if (isWrite(result)) pacer.wrote();
  else pacer.unwritten();
  return result;
}

/** `store` with its shard writes (a commit, a finish carrying the last shard) paced by `pacer`; everything else as it is. */
export function pacedStore(store: JobStore, pacer: ShardPacer): JobStore {
  const commitShard: JobStore['commitShard'] = (jobId, request) =>
    paced(
      pacer,
      () => store.commitShard(jobId, request),
      (result) => result.type === 'committed',
    );
  const finishWork: JobStore['finishWork'] = (jobId, request) =>
    request.shard === undefined
      ? store.finishWork(jobId, request)
      : paced(
          pacer,
          () => store.finishWork(jobId, request),
          (result) => result.type === 'finished',
        );
  return new Proxy(store, {
    get(target, name) {
      if (name === 'commitShard') return commitShard;
      if (name === 'finishWork') return finishWork;
      const value: unknown = Reflect.get(target, name, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
