// Schedules on a real Postgres (a schema of its own) with a real loopback site: a schedule sets the next sync one
// interval (plus at most 10% jitter) on, due sites start by themselves exactly once even with two ticks from two
// connection pools at once, at most `perHost` syncs of one host run at once, and a sync's end moves the next one on;
// the same start-once and move-on on an in-memory PGlite.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startTestRedis } from '../../../test/helpers/redis-server.js';
import { MemoryJobStore } from '../../store/memory-job-store.js';
import { connectRedisJobStore } from '../../store/open-job-store.js';
import type { InventoryDb } from '../db.js';
import { startDueSyncs } from '../due-syncs.js';
import { formatSchedule, ScheduleSchema } from '../schedule.js';
import { createSite, getSite, setSiteSchedule, updateSite } from '../sites.js';
import type { SyncRuntime } from '../sync-driver.js';
import { openInventoryDb } from '../open-db.js';
import { LOOPBACK_NET, openPostgresTestDb, PGLITE_START_MS, startMutableSite, syncToEnd, type MutableSite, useTestDb } from './inventory-fixtures.js';

const MINUTE = 60_000;

describe('schedule text', () => {
  it('parses 15m up to 365d and off, refuses shorter, malformed and longer ones, and prints them back', () => {
    expect(ScheduleSchema.parse('15m')).toBe(15 * MINUTE);
    expect(ScheduleSchema.parse('6h')).toBe(360 * MINUTE);
    expect(ScheduleSchema.parse('off')).toBeNull();
    for (const bad of ['10m', '0h', '24', 'h', '1w', '-1h', '1.5h', '366d', ' ']) expect(ScheduleSchema.safeParse(bad).success, bad).toBe(false);
    expect(['15m', '90m', '6h', '24h', '48h', '7d', 'off'].map((text) => formatSchedule(ScheduleSchema.parse(text)))).toEqual([
      '15m',
      '90m',
      '6h',
      '24h',
      '48h',
      '7d',
      'off',
    ]);
  });
});

describe('scheduled syncs on postgres', () => {
  const test = useTestDb(openPostgresTestDb);
  let second: InventoryDb;
  let site: MutableSite;
  const store = new MemoryJobStore();
  const runtime = (db: InventoryDb): SyncRuntime => ({ db, store, net: LOOPBACK_NET });

  beforeAll(async () => {
    second = await test.reopen();
    site = await startMutableSite(30);
  });
  afterAll(async () => {
    await second?.close();
    await site?.close();
  });
  beforeEach(async () => {
    // Every case starts from no running sync, so the per-host counts are its own.
    await test.db.query(`UPDATE syncs SET state = 'stopped' WHERE state = 'running'`);
    await test.db.query(`UPDATE sites SET schedule_ms = NULL, next_sync_at = NULL`);
  });

  const nextSyncMs = async (siteId: string) => Date.parse((await getSite(test.db, siteId)).nextSyncAt ?? 'null');
  const makeDue = (siteIds: string[]) => test.db.query(`UPDATE sites SET next_sync_at = now() - interval '1 second' WHERE site_id = ANY($1)`, [siteIds]);
  const running = async () =>
    (await test.db.query(`SELECT site_id AS "siteId" FROM syncs WHERE state = 'running' ORDER BY 1`)).map((row) => z.string().parse(row.siteId));

  it('sets the next sync one interval on (plus at most 10%) when a schedule is set, and clears it with off', async () => {
    const before = Date.now();
    const created = await createSite(test.db, { rootUrl: site.rootUrl, siteId: 'sched-new', schedule: '15m' }, LOOPBACK_NET);
    expect(created.schedule).toBe('15m');
    const next = Date.parse(created.nextSyncAt ?? 'null');
    expect(next).toBeGreaterThanOrEqual(before + 15 * MINUTE - 1_000);
    expect(next).toBeLessThanOrEqual(Date.now() + 16.5 * MINUTE + 1_000);
    const daily = await updateSite(test.db, 'sched-new', { schedule: '24h' }, LOOPBACK_NET);
    expect(daily.schedule).toBe('24h');
    expect(Date.parse(daily.nextSyncAt ?? 'null') - Date.now()).toBeGreaterThan(23.9 * 60 * MINUTE);
    const off = await setSiteSchedule(test.db, 'sched-new', 'off');
    expect(off).toMatchObject({ schedule: 'off', nextSyncAt: null });
    expect((await createSite(test.db, { rootUrl: site.rootUrl, siteId: 'sched-default' }, LOOPBACK_NET)).schedule).toBe('off');
  });

  it('jitters the next sync of many sites set at once over up to 10% of the interval', async () => {
    const ids = Array.from({ length: 40 }, (_, i) => `sched-jitter-${i}`);
    for (const siteId of ids) await createSite(test.db, { rootUrl: site.rootUrl, siteId, schedule: '24h' }, LOOPBACK_NET);
    const offsets = await Promise.all(ids.map(async (siteId) => (await nextSyncMs(siteId)) - Date.now() - 24 * 60 * MINUTE));
    expect(Math.min(...offsets)).toBeGreaterThan(-60_000);
    expect(Math.max(...offsets)).toBeLessThan(2.4 * 60 * MINUTE);
    // Forty draws spread over 2.4 hours: not all within one minute of each other.
    expect(Math.max(...offsets) - Math.min(...offsets)).toBeGreaterThan(MINUTE);
  });

  it('starts each due site exactly once when two ticks from two connection pools run at once, and none twice after', async () => {
    const ids = Array.from({ length: 12 }, (_, i) => `sched-race-${String(i).padStart(2, '0')}`);
    for (const siteId of ids) await createSite(test.db, { rootUrl: site.rootUrl, siteId, schedule: '15m' }, LOOPBACK_NET);
    await makeDue(ids);
    const limits = { limit: 50, perHost: 100 };
    const [a, b] = await Promise.all([startDueSyncs(runtime(test.db), limits), startDueSyncs(runtime(second), limits)]);
    const started = [...a.started, ...b.started].map((one) => one.siteId).sort();
    expect(started).toEqual(ids);
    expect([...a.failed, ...b.failed]).toEqual([]);
    expect(await running()).toEqual(ids);
    // No start lost a race either: one sync row per site, the running one.
    const [{ n } = { n: -1 }] = await test.db.query(`SELECT count(*)::int AS n FROM syncs WHERE site_id = ANY($1)`, [ids]);
    expect(n).toBe(ids.length);
    // A third tick finds nothing due. The claim leased each next sync a minute on only, so a process killed between claim
    // and start loses no site; a site whose sync started is not due while it runs, even past the lease (below).
    expect(await startDueSyncs(runtime(test.db), limits)).toEqual({ started: [], failed: [], skipped: 0 });
    for (const siteId of ids) expect(await nextSyncMs(siteId)).toBeLessThanOrEqual(Date.now() + MINUTE);
    await makeDue(ids);
    expect(await startDueSyncs(runtime(test.db), limits)).toEqual({ started: [], failed: [], skipped: 0 });
  });

  it('starts at most perHost syncs of one host, counting those already running, and never a second sync of a site', async () => {
    const ids = Array.from({ length: 5 }, (_, i) => `sched-host-${i}`);
    for (const siteId of ids) await createSite(test.db, { rootUrl: site.rootUrl, siteId, schedule: '15m' }, LOOPBACK_NET);
    await makeDue(ids);
    const first = await startDueSyncs(runtime(test.db), { limit: 50, perHost: 2 });
    expect(first.started.map((one) => one.siteId)).toEqual(['sched-host-0', 'sched-host-1']);
    expect(first.skipped).toBe(3);
    // Both of the host's slots are taken; a site with a running sync is not due (nor counted) until it ends.
    await makeDue(['sched-host-0']);
    expect(await startDueSyncs(runtime(test.db), { limit: 50, perHost: 2 })).toMatchObject({ started: [], skipped: 3 });
    expect(await running()).toEqual(['sched-host-0', 'sched-host-1']);
  });

  it('tries a site whose start failed (its job store down) again 5 minutes on, not a whole interval later', { timeout: 30_000 }, async () => {
    const redis = await startTestRedis();
    expect(redis.external).toBe(false);
    const downStore = await connectRedisJobStore(redis.url);
    try {
      await redis.stop();
      await createSite(test.db, { rootUrl: site.rootUrl, siteId: 'sched-store-down', schedule: '24h' }, LOOPBACK_NET);
      await makeDue(['sched-store-down']);
      const result = await startDueSyncs({ db: test.db, store: downStore, net: LOOPBACK_NET }, { limit: 50, perHost: 10 });
      expect(result.started).toEqual([]);
      expect(result.failed).toMatchObject([{ siteId: 'sched-store-down', kind: 'store_unavailable' }]);
      const inMs = (await nextSyncMs('sched-store-down')) - Date.now();
      expect(inMs).toBeGreaterThan(4 * MINUTE);
      expect(inMs).toBeLessThan(6 * MINUTE);
    } finally {
      await downStore.close().catch(() => undefined);
    }
  });

  it('moves the next sync one interval on from the end of a sync of the site', async () => {
    await createSite(test.db, { rootUrl: site.rootUrl, siteId: 'sched-end', schedule: '15m' }, LOOPBACK_NET);
    await makeDue(['sched-end']);
    const [started] = (await startDueSyncs(runtime(test.db), { limit: 50, perHost: 10 })).started;
    expect(started?.siteId).toBe('sched-end');
    // Due again (as if the sync took longer than its interval): the end moves it on.
    await makeDue(['sched-end']);
    const done = await syncToEnd(runtime(test.db), started?.syncId ?? '');
    expect(done).toMatchObject({ state: 'done', new: 30 });
    const next = await nextSyncMs('sched-end');
    const finished = Date.parse(done.finishedAt ?? 'null');
    expect(next).toBeGreaterThanOrEqual(finished + 15 * MINUTE - 1_000);
    expect(next).toBeLessThanOrEqual(finished + 16.5 * MINUTE + 1_000);
  });
});

// PGlite is one session, where the tick's advisory lock is re-entrant: the in-process guard keeps two ticks apart there.
describe('scheduled syncs on pglite', () => {
  let db: InventoryDb;
  let site: MutableSite;
  const store = new MemoryJobStore();

  beforeAll(async () => {
    db = await openInventoryDb({ dataDir: null });
    site = await startMutableSite(30);
  }, PGLITE_START_MS);
  afterAll(async () => {
    await db?.close();
    await site?.close();
  });

  it('starts a due site once with two ticks at once, and moves its next sync on when the sync ends', { timeout: 120_000 }, async () => {
    const runtime: SyncRuntime = { db, store, net: LOOPBACK_NET };
    await createSite(db, { rootUrl: site.rootUrl, siteId: 'lite', schedule: '30m' }, LOOPBACK_NET);
    await db.query(`UPDATE sites SET next_sync_at = now() - interval '1 second' WHERE site_id = 'lite'`);
    const [a, b] = await Promise.all([startDueSyncs(runtime), startDueSyncs(runtime)]);
    const started = [...a.started, ...b.started];
    expect(started.map((one) => one.siteId)).toEqual(['lite']);
    const done = await syncToEnd(runtime, started[0]?.syncId ?? '');
    expect(done).toMatchObject({ state: 'done', new: 30 });
    const next = Date.parse((await getSite(db, 'lite')).nextSyncAt ?? 'null');
    expect(next - Date.parse(done.finishedAt ?? 'null')).toBeGreaterThanOrEqual(30 * MINUTE - 1_000);
    expect(await startDueSyncs(runtime)).toEqual({ started: [], failed: [], skipped: 0 });
  });
});
