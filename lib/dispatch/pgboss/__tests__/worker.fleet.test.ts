// The fleet proof: 200 loopback sites dripping their sitemaps slowly, each with a due schedule, synced by 4 `worker`
// processes (the built bin) sharing one Postgres and one Redis, two of them killed with SIGKILL at random moments and
// started again. Every site's one sync ends `done`, with each of its URLs exactly once in the inventory; none is left
// running. (How fast the fleet goes is bench/fleet's business, not this test's.)
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listSyncs } from '../../../inventory/syncs.js';
import { prepareFleetState, startDripSites, startWorker, untilAllEnded, type DripSites, type FleetState, type WorkerProcess } from './worker-fleet.js';

const SITES = 200;
const WORKERS = 4;

describe('a fleet of workers on one queue', () => {
  let sites: DripSites;
  let fleet: FleetState;
  const workers: WorkerProcess[] = [];

  beforeAll(async () => {
    sites = await startDripSites(SITES, { children: 3, urlsPerChild: 100, chunks: 4, chunkDelayMs: 150 });
    // A short expiry, so the slices a killed worker held are retried within seconds rather than a minute.
    fleet = await prepareFleetState(sites.rootUrls, { FACTORY_PGBOSS_EXPIRE_SECONDS: '10' });
  }, 120_000);
  afterAll(async () => {
    await Promise.all(workers.map((worker) => worker.stop()));
    await fleet?.close();
    await sites?.close();
  }, 60_000);

  it('syncs every due site exactly once to done while workers are killed and restarted', { timeout: 420_000 }, async () => {
    workers.push(...(await Promise.all(Array.from({ length: WORKERS }, () => startWorker(fleet.env, 4)))));
    // Two workers die mid-slice at random moments of the run and come back a moment later.
    for (const victim of [0, 1]) {
      await sleep(1_000 + Math.random() * 3_000);
      await workers[victim]?.stop('SIGKILL');
      await sleep(500);
      workers[victim] = await startWorker(fleet.env, 4);
    }
    const states = await untilAllEnded(fleet.test.db, SITES, 360_000);
    expect(states).toEqual({ done: SITES });
    const [counts] = await fleet.test.db.query(`SELECT count(*)::int AS rows, count(DISTINCT (site_id, url))::int AS distinct_rows FROM urls`);
    expect(counts).toEqual({ rows: SITES * sites.urlsPerSite, distinct_rows: SITES * sites.urlsPerSite });
    const perSite = await fleet.test.db.query(`SELECT site_id AS "siteId", count(*)::int AS n FROM urls GROUP BY site_id`);
    expect(perSite).toHaveLength(SITES);
    expect(perSite.every((row) => row.n === sites.urlsPerSite)).toBe(true);
    for (let i = 0; i < SITES; i += 1) {
      const history = await listSyncs(fleet.test.db, `site-${String(i).padStart(4, '0')}`);
      expect(history.map((sync) => [sync.state, sync.urlsFound, sync.new])).toEqual([['done', sites.urlsPerSite, sites.urlsPerSite]]);
    }
  });
});
