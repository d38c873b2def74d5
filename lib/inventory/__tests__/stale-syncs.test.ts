// Stale syncs on a real Postgres (a schema of its own) with a real loopback site: a running sync whose row has not
// moved for the lease is found stale (the cron and `serve` take it up again), and a step that runs longer than the
// lease keeps its sync off that list by its heartbeat, so no second driver runs beside a live one.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryJobStore } from '../../store/memory-job-store.js';
import { createSite } from '../sites.js';
import { staleSyncIds, withSyncHeartbeat } from '../stale-syncs.js';
import { startSync, stopSync, type SyncRuntime } from '../sync-driver.js';
import { LOOPBACK_NET, openPostgresTestDb, startMutableSite, type MutableSite, useTestDb } from './inventory-fixtures.js';

describe('stale syncs', () => {
  const test = useTestDb(openPostgresTestDb);
  let site: MutableSite;
  let runtime: SyncRuntime;

  beforeAll(async () => {
    site = await startMutableSite(20);
    runtime = { db: test.db, store: new MemoryJobStore(), net: LOOPBACK_NET };
  });
  afterAll(async () => {
    await site?.close();
  });

  // The row last moved ten minutes ago: as a sync whose driver was killed mid-step looks.
  const abandon = (syncId: string) => test.db.query(`UPDATE syncs SET updated_at = now() - interval '10 minutes' WHERE sync_id = $1`, [syncId]);

  it('lists running syncs whose row has not moved for the lease, oldest first, without the excluded or ended ones', async () => {
    const ids: string[] = [];
    for (const siteId of ['stale-a', 'stale-b', 'stale-c']) {
      await createSite(test.db, { rootUrl: site.rootUrl, siteId }, LOOPBACK_NET);
      ids.push((await startSync(runtime, siteId)).syncId);
    }
    const [a, b, c] = ids as [string, string, string];
    expect(await staleSyncIds(test.db)).toEqual([]);
    await abandon(b);
    await abandon(a);
    await test.db.query(`UPDATE syncs SET updated_at = updated_at - interval '1 minute' WHERE sync_id = $1`, [a]);
    expect(await staleSyncIds(test.db)).toEqual([a, b]);
    expect(await staleSyncIds(test.db, { limit: 1 })).toEqual([a]);
    expect(await staleSyncIds(test.db, { limit: 1, exclude: new Set([a]) })).toEqual([b]);
    await stopSync(runtime, a);
    await abandon(a);
    expect(await staleSyncIds(test.db)).toEqual([b]);
    for (const syncId of [b, c]) await stopSync(runtime, syncId);
  });

  it('keeps a sync off the stale list while a step longer than the lease runs, and lets it fall back once the step ends', async () => {
    await createSite(test.db, { rootUrl: site.rootUrl, siteId: 'stale-beat' }, LOOPBACK_NET);
    const { syncId } = await startSync(runtime, 'stale-beat');
    await abandon(syncId);
    expect(await staleSyncIds(test.db)).toEqual([syncId]);
    // Inside the step, the row moves within a few beats (however slow the machine, it is awaited, not timed).
    const listedDuringStep = await withSyncHeartbeat(
      test.db,
      syncId,
      async () => {
        let listed = await staleSyncIds(test.db);
        for (let tries = 0; listed.length > 0 && tries < 200; tries += 1) {
          await sleep(25);
          listed = await staleSyncIds(test.db);
        }
        return listed;
      },
      20,
    );
    expect(listedDuringStep).toEqual([]);
    await abandon(syncId);
    await sleep(150);
    // The step has ended: no beat moves the row any more.
    expect(await staleSyncIds(test.db)).toEqual([syncId]);
    await stopSync(runtime, syncId);
  });
});
