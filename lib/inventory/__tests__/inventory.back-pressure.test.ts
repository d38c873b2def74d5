// The walk paced to the sink: a loopback site answers far faster than the inventory applies, and still the memory job
// store never holds more than SHARDS_AHEAD shards not applied, frees each shard once applied, and every URL lands.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommitRequest, CommitResult, FinishRequest, FinishResult } from '../../store/job-store.js';
import { MemoryJobStore } from '../../store/memory-job-store.js';
import { SHARDS_AHEAD, ShardPacer } from '../shard-pacer.js';
import { createSite } from '../sites.js';
import { getSync } from '../syncs.js';
import { advanceSync, startSync } from '../sync-driver.js';
import { LOOPBACK_NET, openPostgresTestDb, startMutableSite, type MutableSite, type TestDb } from './inventory-fixtures.js';

/** The memory store, counting the shards it holds (written and not yet freed) and the most it ever held. */
class CountingStore extends MemoryJobStore {
  held = 0;
  mostHeld = 0;
  written = 0;

  override async commitShard(jobId: string, request: CommitRequest): Promise<CommitResult> {
    const result = await super.commitShard(jobId, request);
    if (result.type === 'committed') this.hold();
    return result;
  }

  override async finishWork(jobId: string, request: FinishRequest): Promise<FinishResult> {
    const result = await super.finishWork(jobId, request);
    if (result.type === 'finished' && request.shard !== undefined) this.hold();
    return result;
  }

  override async dropShard(jobId: string, n: number): Promise<void> {
    if ((await this.readShard(jobId, n)) !== null) this.held -= 1;
    await super.dropShard(jobId, n);
  }

  private hold(): void {
    this.written += 1;
    this.held += 1;
    this.mostHeld = Math.max(this.mostHeld, this.held);
  }
}

describe('a sync paced to its sink', () => {
  let site: MutableSite;
  let test: TestDb;

  beforeAll(async () => {
    // 40 urlsets of 1000 pages: 40 shards a slice could write long before the inventory applied the first.
    site = await startMutableSite(40_000);
    test = await openPostgresTestDb();
  });
  afterAll(async () => {
    await site?.close();
    await test?.db.close();
    await test?.drop();
  });

  it('holds at most SHARDS_AHEAD shards not applied, frees every applied shard, and applies all', { timeout: 120_000 }, async () => {
    const store = new CountingStore();
    const runtime = { db: test.db, store, net: LOOPBACK_NET };
    await createSite(test.db, { rootUrl: site.rootUrl, siteId: 'paced' }, LOOPBACK_NET);
    const started = await startSync(runtime, 'paced');
    // One long slice: the whole site within its budget, so only the pacing stands between the walk and the store.
    const sync = await advanceSync(runtime, started.syncId, { budgetMs: 60_000 });
    expect(sync).toMatchObject({ state: 'done', new: 40_000, shardsWritten: 40, shardsApplied: 40 });
    expect(store.written).toBe(40);
    expect(store.mostHeld).toBeLessThanOrEqual(SHARDS_AHEAD);
    expect(store.held).toBe(0);
    expect(await store.readShard(started.jobId, 0)).toBeNull();
    expect((await getSync(test.db, started.syncId)).state).toBe('done');
  });
});

describe('the shard pacer', () => {
  it('admits up to its limit, then one writer per shard applied or given back, in order', async () => {
    const pacer = new ShardPacer(2);
    await pacer.admit();
    await pacer.admit();
    const order: string[] = [];
    const third = pacer.admit().then(() => order.push('third'));
    const fourth = pacer.admit().then(() => order.push('fourth'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual([]);
    pacer.wrote();
    expect(pacer.hasWritten).toBe(true);
    pacer.applied();
    await third;
    expect(order).toEqual(['third']);
    pacer.unwritten();
    await fourth;
    expect(order).toEqual(['third', 'fourth']);
  });

  it('wakes the sink at the next write, and lets everything go on release', async () => {
    const pacer = new ShardPacer(1);
    const write = pacer.nextWrite();
    expect(pacer.nextWrite()).toBe(write);
    await pacer.admit();
    pacer.wrote();
    await write;
    const blocked = pacer.admit();
    const sinkWaits = pacer.nextWrite();
    pacer.release();
    await Promise.all([blocked, sinkWaits]);
    expect(pacer.isReleased).toBe(true);
    await pacer.nextWrite();
  });
});
