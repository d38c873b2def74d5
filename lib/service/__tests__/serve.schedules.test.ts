// `serve` keeps schedules without a cron: a real built `crawler-factory serve` process on a Postgres schema of its own
// starts a site whose 15m schedule fell due on its next 30 s tick, drives that sync to done in the background, and
// moves the site's next sync one interval on from the sync's end. Nobody calls the cron route or posts a slice.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../test/helpers/redis-server.js';
import { type MutableSite, startMutableSite, useTestSchema } from '../../inventory/__tests__/inventory-fixtures.js';
import { SCHEDULE_TICK_MS } from '../schedule-timer.js';
import { BUILT_BIN, startServe, type ServeProcess } from './serve-process.js';

const TOKEN = 'serve-schedules-token';
const MINUTE = 60_000;

describe('serve starts scheduled syncs by itself', () => {
  const { schema, databaseUrl, admin } = useTestSchema('inv_sched_serve');
  let site: MutableSite;
  let serve: ServeProcess | null = null;

  beforeAll(async () => {
    site = await startMutableSite(500);
  });
  afterAll(async () => {
    await serve?.stop('SIGKILL');
    await site?.close();
  });

  it('starts a due 15m site on its timer, takes the sync to done and moves the next sync on', { timeout: 180_000 }, async () => {
    serve = await startServe({
      port: await freePort(),
      bin: BUILT_BIN,
      env: {
        DATABASE_URL: databaseUrl,
        FACTORY_API_TOKEN: TOKEN,
        FACTORY_ALLOW_PRIVATE: '1',
      },
    });
    const origin = serve.origin;
    const call = (path: string, init: RequestInit = {}) =>
      fetch(`${origin}${path}`, { ...init, headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' } });
    const created = await call('/api/factory/sites', { method: 'POST', body: JSON.stringify({ rootUrl: site.rootUrl, siteId: 'timed', schedule: '15m' }) });
    expect(created.status).toBe(201);
    expect((await admin.query(`SELECT count(*)::int AS n FROM ${schema}.syncs`)).rows).toEqual([{ n: 0 }]);
    await admin.query(`UPDATE ${schema}.sites SET next_sync_at = now() - interval '1 minute' WHERE site_id = 'timed'`);
    const dueAt = Date.now();
    let syncs: Array<{ state: string; seen: number; finishedAt: string | null; startedAt: string }> = [];
    while (Date.now() - dueAt < SCHEDULE_TICK_MS + 60_000 && syncs[0]?.state !== 'done') {
      await sleep(500);
      syncs = ((await (await call('/api/factory/sites/timed/syncs')).json()) as { syncs: typeof syncs }).syncs;
    }
    expect(syncs).toHaveLength(1);
    expect(syncs[0]).toMatchObject({ state: 'done', seen: 500 });
    // Started by the next tick, not later.
    expect(Date.parse(syncs[0]!.startedAt) - dueAt).toBeLessThan(SCHEDULE_TICK_MS + 5_000);
    const timed = (await (await call('/api/factory/sites/timed')).json()) as { schedule: string; nextSyncAt: string };
    expect(timed.schedule).toBe('15m');
    expect(Date.parse(timed.nextSyncAt) - Date.parse(syncs[0]!.finishedAt ?? 'null')).toBeGreaterThanOrEqual(15 * MINUTE - 1_000);
    expect(await serve.stop('SIGTERM')).toBe(0);
    serve = null;
  });
});
