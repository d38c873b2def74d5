// The pg-boss engine in one process, on real Postgres and Redis: a sync advanced only through the queue reaches `done`
// with exact rows; asking for a sync's next slice again while one waits queues nothing more; a sync whose slices fail
// every retry ends `failed` with the reason, through the dead-letter queue.
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureSite } from '../../../inventory/sites.js';
import { startSync, type SyncRuntime } from '../../../inventory/sync-driver.js';
import { getSync } from '../../../inventory/syncs.js';
import type { Sync } from '../../../inventory/schemas.js';
import { connectRedisJobStore } from '../../../store/open-job-store.js';
import type { JobStore } from '../../../store/job-store.js';
import {
  LOOPBACK_NET,
  openPostgresTestDb,
  startMutableSite,
  TEST_DATABASE_URL,
  urlFacts,
  type MutableSite,
  type TestDb,
} from '../../../inventory/__tests__/inventory-fixtures.js';
import { startTestRedis, type TestRedis } from '../../../../test/helpers/redis-server.js';
import { DEFAULT_PGBOSS_SETTINGS, startPgBossEngine, type PgBossSettings } from '../index.js';
import type { SliceDispatcher } from '../../slice-dispatcher.js';
import { useLogger } from '../../../utils/logger.js';

const settings: PgBossSettings = {
  ...DEFAULT_PGBOSS_SETTINGS,
  schema: `pgboss_${process.pid}_${Math.random().toString(36).slice(2, 8)}`,
  retryLimit: 1,
  retryDelaySeconds: 1,
};

async function untilEnded(runtime: SyncRuntime, syncId: string): Promise<Sync> {
  for (let polls = 0; polls < 600; polls += 1) {
    const sync = await getSync(runtime.db, syncId);
    if (sync.state !== 'running') return sync;
    await sleep(200);
  }
  throw new Error(`sync ${syncId} still running`);
}

describe('the pg-boss engine', () => {
  let test: TestDb;
  let redis: TestRedis;
  let store: JobStore;
  let site: MutableSite;
  const engines: SliceDispatcher[] = [];

  const engine = async (runtime: SyncRuntime, concurrency: number) => {
    const started = await startPgBossEngine({ databaseUrl: TEST_DATABASE_URL, settings, runtime: async () => runtime, concurrency, perHost: 2 });
    engines.push(started);
    return started;
  };

  beforeAll(async () => {
    test = await openPostgresTestDb();
    redis = await startTestRedis();
    store = await connectRedisJobStore(redis.url);
    site = await startMutableSite(3_000, 500);
    site.delayMs = 300;
  });
  // Each case's engines stop with it: a worker left running would take the next case's slices with its own runtime.
  afterEach(async () => {
    for (const started of engines.splice(0)) await started.stop();
  });
  afterAll(async () => {
    await store?.close();
    await redis?.stop();
    await site?.close();
    await test?.db.close();
    await test?.drop();
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    await admin.query(`DROP SCHEMA IF EXISTS ${settings.schema} CASCADE`);
    await admin.end();
  });

  it('keeps one waiting slice per sync however often it is asked', { timeout: 60_000 }, async () => {
    const runtime: SyncRuntime = { db: test.db, store, net: LOOPBACK_NET };
    await ensureSite(test.db, { rootUrl: site.rootUrl, siteId: 'queued', options: { concurrency: 1 } }, LOOPBACK_NET);
    const { syncId } = await startSync(runtime, 'queued');
    const queueOnly = await engine(runtime, 0);
    for (let ask = 0; ask < 3; ask += 1) await queueOnly.continueSync(runtime, syncId);
    expect(await queueOnly.depth()).toBe(1);
    expect(queueOnly.engine).toBe('pg-boss');
  });

  it('drives the queued sync to done through its slices alone, each URL once', { timeout: 120_000 }, async () => {
    const runtime: SyncRuntime = { db: test.db, store, net: LOOPBACK_NET };
    const worker = await engine(runtime, 2);
    const [running] = await test.db.query(`SELECT sync_id AS "syncId" FROM syncs WHERE site_id = 'queued'`);
    const done = await untilEnded(runtime, String(running?.syncId));
    expect(done.state).toBe('done');
    expect(done.urlsFound).toBe(3_000);
    const rows = await urlFacts(test.db, 'queued');
    expect(rows).toHaveLength(3_000);
    expect(new Set(rows.map((row) => row.url)).size).toBe(3_000);
    expect(await worker.depth()).toBe(0);
  });

  it('ends a sync whose slices fail every retry failed, with the reason', { timeout: 120_000 }, async () => {
    const downRedis = await startTestRedis();
    const downStore = await connectRedisJobStore(downRedis.url);
    try {
      const alive: SyncRuntime = { db: test.db, store: downStore, net: LOOPBACK_NET };
      await ensureSite(test.db, { rootUrl: site.rootUrl, siteId: 'doomed', options: { concurrency: 1 } }, LOOPBACK_NET);
      const { syncId } = await startSync(alive, 'doomed');
      await downRedis.stop();
      const worker = await engine(alive, 1);
      await worker.continueSync(alive, syncId);
      const failed = await untilEnded(alive, syncId);
      expect(failed.state).toBe('failed');
      expect(failed.message).toMatch(/its slices failed 2 times; the last: .+/);
    } finally {
      await downStore.close().catch(() => undefined);
    }
  });

  it('starts four workers at once on a fresh database, a lost race to create the queue one info line without a stack', { timeout: 60_000 }, async () => {
    const runtime: SyncRuntime = { db: test.db, store, net: LOOPBACK_NET };
    const fresh: PgBossSettings = { ...settings, schema: `${settings.schema}_fresh` };
    const lines: Array<{ level: string; fields: Record<string, unknown> }> = [];
    const capture = (level: string) => (fields: object) => void lines.push({ level, fields: fields as Record<string, unknown> });
    useLogger({ level: 'debug', error: capture('error'), warn: capture('warn'), info: capture('info'), debug: capture('debug') });
    try {
      const started = await Promise.all(
        [0, 1, 2, 3].map(() =>
          startPgBossEngine({ databaseUrl: TEST_DATABASE_URL, settings: fresh, runtime: async () => runtime, concurrency: 1, perHost: 2 }),
        ),
      );
      engines.push(...started);
      expect(started.map((one) => one.engine)).toEqual(['pg-boss', 'pg-boss', 'pg-boss', 'pg-boss']);
    } finally {
      useLogger(null);
      for (const started of engines.splice(0)) await started.stop();
      const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await admin.connect();
      await admin.query(`DROP SCHEMA IF EXISTS ${fresh.schema} CASCADE`);
      await admin.end();
    }
    expect(lines.filter((line) => line.level === 'error' || line.level === 'warn')).toEqual([]);
    for (const race of lines.filter((line) => line.fields.event === 'pgboss_start_race')) {
      expect(race.level).toBe('info');
      expect(race.fields).not.toHaveProperty('err');
      expect(['40P01', '23505']).toContain(race.fields.code);
    }
  });
});
