// A sync's counters agree at every moment, read while a step applies its shards: the inventory's side (seen, shards
// applied) is never ahead of the job's (URLs found, shards written), whoever reads the row and when.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryJobStore } from '../../store/memory-job-store.js';
import { createSite } from '../sites.js';
import { advanceSync, startSync } from '../sync-driver.js';
import { getSync } from '../syncs.js';
import type { Sync } from '../schemas.js';
import { LOOPBACK_NET, openPostgresTestDb, startMutableSite, useTestDb, type MutableSite } from './inventory-fixtures.js';

describe('sync counters', () => {
  const test = useTestDb(openPostgresTestDb);
  let site: MutableSite;
  beforeAll(async () => {
    site = await startMutableSite(20_000, 1_000);
  });
  afterAll(async () => site?.close());

  it('never show more in the inventory than the job found, read while shards are applied', { timeout: 120_000 }, async () => {
    const runtime = { db: test.db, store: new MemoryJobStore(), net: LOOPBACK_NET };
    await createSite(test.db, { rootUrl: site.rootUrl, siteId: 'counted' });
    const { syncId } = await startSync(runtime, 'counted');
    const seen: Sync[] = [];
    let stepping = true;
    const watcher = (async () => {
      while (stepping) seen.push(await getSync(test.db, syncId));
    })();
    let sync = await getSync(test.db, syncId);
    while (sync.state === 'running') sync = await advanceSync(runtime, syncId, { budgetMs: 30_000 });
    stepping = false;
    await watcher;
    expect(sync).toMatchObject({ state: 'done', seen: 20_000, urlsFound: 20_000 });
    const applying = seen.filter((row) => row.seen > 0 && row.seen < 20_000);
    expect(applying.length, 'rows read while shards were being applied').toBeGreaterThan(0);
    for (const row of seen) {
      expect(row.seen, `seen ${row.seen} of ${row.urlsFound} found`).toBeLessThanOrEqual(row.urlsFound);
      expect(row.shardsApplied).toBeLessThanOrEqual(row.shardsWritten);
    }
  });
});
