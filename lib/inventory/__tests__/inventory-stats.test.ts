// The health route's counts on both databases: sites, running syncs and the oldest one's age, due syncs (scheduled, due,
// not running, not deleted) and the oldest one's wait, measured on the database's clock.
import { describe, expect, it } from 'vitest';
import { inventoryStats } from '../inventory-stats.js';
import { DATABASES, useTestDb } from './inventory-fixtures.js';

const MINUTE_MS = 60_000;

describe.each(DATABASES)('inventory stats on $name', ({ open }) => {
  const test = useTestDb(open);

  it('counts nothing on an empty inventory', async () => {
    expect(await inventoryStats(test.db)).toEqual({ sites: 0, runningSyncs: 0, oldestRunningAgeMs: null, dueSyncs: 0, oldestDueAgeMs: null });
  });

  it('counts running syncs and due sites apart, each with its oldest age', async () => {
    // running: due for 30 min but syncing for 2 min; late: due 10 min; soon: due in an hour; off: no schedule;
    // gone: deleted while due.
    await test.db.query(
      `INSERT INTO sites (site_id, root_url, schedule_ms, next_sync_at, deleted_at) VALUES
         ('running', 'https://a.example/', 3600000, now() - interval '30 minutes', NULL),
         ('late', 'https://b.example/', 3600000, now() - interval '10 minutes', NULL),
         ('soon', 'https://c.example/', 3600000, now() + interval '1 hour', NULL),
         ('off', 'https://d.example/', NULL, now() - interval '1 day', NULL),
         ('gone', 'https://e.example/', 3600000, now() - interval '1 day', now())`,
    );
    await test.db.query(
      `INSERT INTO syncs (sync_id, site_id, job_id, state, started_at) VALUES ('AAAAAAAAAAAAAAAAAAAAAA', 'running', 'job', 'running', now() - interval '2 minutes')`,
    );
    const stats = await inventoryStats(test.db);
    // A deleted site is no site of the fleet.
    expect(stats).toMatchObject({ sites: 4, runningSyncs: 1, dueSyncs: 1 });
    expect(stats.oldestRunningAgeMs).toBeGreaterThanOrEqual(2 * MINUTE_MS);
    expect(stats.oldestRunningAgeMs).toBeLessThan(3 * MINUTE_MS);
    expect(stats.oldestDueAgeMs).toBeGreaterThanOrEqual(10 * MINUTE_MS);
    expect(stats.oldestDueAgeMs).toBeLessThan(11 * MINUTE_MS);
  });
});
