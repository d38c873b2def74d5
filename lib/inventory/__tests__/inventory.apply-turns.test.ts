// Applying shards gives the event loop its turns on PGlite, whose queries complete without one: a long apply must not
// hold off timers (the sync's heartbeat), signal handlers or, in `serve`, requests until its last shard is in.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSlice } from '../../factory/jobs/run-slice.js';
import { MemoryJobStore } from '../../store/memory-job-store.js';
import { createSite } from '../sites.js';
import { advanceSync, startSync, type SyncRuntime } from '../sync-driver.js';
import { LOOPBACK_NET, openPgliteTestDb, PGLITE_START_MS, startMutableSite, type MutableSite, useTestDb } from './inventory-fixtures.js';

describe('applying shards on PGlite', { timeout: PGLITE_START_MS }, () => {
  const test = useTestDb(openPgliteTestDb);
  let site: MutableSite;

  beforeAll(async () => {
    site = await startMutableSite(12_000);
  });
  afterAll(async () => {
    await site?.close();
  });

  it('lets timers run between shards while it applies a job read in full', async () => {
    const runtime: SyncRuntime = { db: test.db, store: new MemoryJobStore(), net: LOOPBACK_NET };
    await createSite(test.db, { rootUrl: site.rootUrl, siteId: 'turns' }, LOOPBACK_NET);
    const sync = await startSync(runtime, 'turns');
    // The job reads the whole site first, so the step below has only shards to apply (12 of them) and no network to wait on.
    const read = await runSlice(runtime.store, sync.jobId, { budgetMs: 60_000, net: LOOPBACK_NET });
    expect(read).toMatchObject({ state: 'done', shardsWritten: 12 });
    let ticks = 0;
    const timer = setInterval(() => (ticks += 1), 1);
    try {
      const applied = await advanceSync(runtime, sync.syncId, { budgetMs: 10_000 });
      expect(applied).toMatchObject({ state: 'done', new: 12_000, shardsApplied: 12 });
    } finally {
      clearInterval(timer);
    }
    // One turn a shard at least: a 1 ms timer comes due during each shard's queries and runs on the next turn.
    expect(ticks).toBeGreaterThanOrEqual(11);
  });
});
