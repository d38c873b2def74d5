import { SHARD_SIZE, type ClaimedWork, type FinalShard } from '../../store/job-store.js';
import type { ShardEntry } from '../../core/types.js';
import { haltSlice, type SliceContext } from './slice-context.js';

/**
 * Cuts one sitemap's entries into shards and commits each with its offset advance in one atomic store step.
 * The offset it tracks is the claim's: a commit that finds the offset moved or the lease gone means another
 * worker owns the sitemap now, and this one stops writing.
 */
export class ShardWriter {
  private buffer: ShardEntry[] = [];
  private offset: number;
  /** Shards this writer committed (duplicates of a lost reply included once). */
  shards = 0;

  constructor(
    private readonly context: SliceContext,
    private readonly work: ClaimedWork,
  ) {
    this.offset = work.offset;
  }

  /** Adds entries, committing every full shard; false once the work or the job is lost. */
  async add(entries: ShardEntry[]): Promise<boolean> {
    for (const entry of entries) this.buffer.push(entry);
    while (this.buffer.length >= SHARD_SIZE) {
      if (!(await this.commit(this.buffer.splice(0, SHARD_SIZE)))) return false;
    }
    return true;
  }

  /** What is buffered, as the last shard `finishWork` may commit in its own step; undefined when nothing is. */
  lastShard(): FinalShard | undefined {
    return this.buffer.length === 0 ? undefined : { offset: this.offset, entries: this.buffer };
  }

  /** The last shard went in with the finish. */
  lastShardCommitted(): void {
    this.offset += this.buffer.length;
    this.shards += 1;
    this.buffer = [];
  }

  /** Commits what is buffered (the sitemap's last partial shard, or its progress at a pause). */
  async flush(): Promise<boolean> {
    if (this.buffer.length === 0) return true;
    return this.commit(this.buffer.splice(0));
  }

  private async commit(entries: ShardEntry[]): Promise<boolean> {
    const { store, jobId, log } = this.context;
    const request = { workId: this.work.workId, token: this.work.token, offset: this.offset, entries };
    const result = await store.commitShard(jobId, request);
    switch (result.type) {
      case 'committed':
      case 'duplicate':
        this.offset += entries.length;
        this.shards += 1;
        log.debug(
          { event: 'shard_committed', shard: result.shard, urls: entries.length, offset: this.offset, retried: result.type === 'duplicate' },
          'shard committed',
        );
        return true;
      case 'over_limit':
        // maxUrls: the last allowance goes in, and the commit that reaches it ends the job.
        if (result.allowance > 0) await this.commit(entries.slice(0, result.allowance));
        return false;
      case 'halted':
        haltSlice(this.context);
        return false;
      default:
        log.warn({ event: 'lease_lost', workId: this.work.workId, reason: result.type }, 'another worker owns this sitemap now: stopping it here');
        return false;
    }
  }
}
