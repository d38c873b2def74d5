// The cron tick over HTTP on a real Postgres schema and a real loopback site: schedules set through the sites API,
// `GET /api/factory/cron` signed with CRON_SECRET starts a site that is due (once, even with two ticks at once) and runs
// its sync, re-drives a running sync that stalled, and refuses unsigned calls (401) or, on Vercel without a secret, 500.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSitesApi, type SitesApi } from './sites-api-fixture.js';

const TOKEN = 'cron-api-token';
const SECRET = 'cron-secret-value';
const MINUTE = 60_000;

interface CronSummary {
  started: Array<{ siteId: string; syncId: string }>;
  advanced: Array<{ syncId: string; siteId: string; state: string }>;
  skipped: number;
  failed: unknown[];
}

describe('GET /api/factory/cron', () => {
  let api: SitesApi;
  let db: pg.Client;

  beforeAll(async () => {
    api = await startSitesApi({ name: 'inv_cron', token: TOKEN, pages: 40 });
    await api.configure({ CRON_SECRET: SECRET });
    db = new pg.Client({ connectionString: api.databaseUrl });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
    await api?.close();
  });

  const cron = (authorization: string | null) =>
    fetch(`${api.server.origin}/api/factory/cron`, { headers: authorization === null ? {} : { authorization: `Bearer ${authorization}` } });
  const tick = async (): Promise<CronSummary> => {
    const response = await cron(SECRET);
    expect(response.status).toBe(200);
    return (await response.json()) as CronSummary;
  };
  const makeDue = (siteId: string) => db.query(`UPDATE sites SET next_sync_at = now() - interval '1 minute' WHERE site_id = $1`, [siteId]);
  const site = async (siteId: string) => (await (await api.call(`/api/factory/sites/${siteId}`)).json()) as { schedule: string; nextSyncAt: string | null };

  it('takes a schedule on create and by PATCH, shows it with the next sync, and refuses one under 15m', async () => {
    const created = await api.post('/api/factory/sites', { rootUrl: api.site.rootUrl, siteId: 'cron-a', schedule: '15m' });
    expect(created.status).toBe(201);
    const body = (await created.json()) as { schedule: string; nextSyncAt: string };
    expect(body.schedule).toBe('15m');
    expect(Date.parse(body.nextSyncAt) - Date.now()).toBeGreaterThan(14 * MINUTE);
    const patched = await api.call('/api/factory/sites/cron-a', { method: 'PATCH', body: JSON.stringify({ schedule: '6h' }) });
    expect(await patched.json()).toMatchObject({ schedule: '6h', options: {} });
    const tooOften = await api.call('/api/factory/sites/cron-a', { method: 'PATCH', body: JSON.stringify({ schedule: '5m' }) });
    expect(tooOften.status).toBe(400);
    expect(await tooOften.json()).toMatchObject({ error: { kind: 'bad_request', message: expect.stringContaining('at least 15m') } });
    await api.call('/api/factory/sites/cron-a', { method: 'PATCH', body: JSON.stringify({ schedule: '15m' }) });
    const list = (await (await api.call('/api/factory/sites')).json()) as { sites: Array<{ siteId: string; schedule: string }> };
    expect(list.sites.find((one) => one.siteId === 'cron-a')?.schedule).toBe('15m');
  });

  it('refuses a call without the secret, or with the API token instead of it, with 401', async () => {
    expect((await cron(null)).status).toBe(401);
    const withToken = await cron(TOKEN);
    expect(withToken.status).toBe(401);
    expect(await withToken.json()).toMatchObject({ error: { kind: 'unauthorized' } });
  });

  it('starts a due site once when two ticks run at once, runs its sync, and moves its next sync on', { timeout: 60_000 }, async () => {
    await makeDue('cron-a');
    const [a, b] = await Promise.all([tick(), tick()]);
    const started = [...a.started, ...b.started];
    expect(started.map((one) => one.siteId)).toEqual(['cron-a']);
    // The tick that started it ran a slice: a 40-page site is done in one.
    const advanced = [...a.advanced, ...b.advanced].find((one) => one.syncId === started[0]?.syncId);
    expect(advanced).toMatchObject({ siteId: 'cron-a', state: 'done' });
    // The counters are the parts' sums, read as every reader reads them: through the API.
    const { syncs } = (await (await api.call('/api/factory/sites/cron-a/syncs')).json()) as { syncs: Array<{ state: string; new: number }> };
    expect(syncs.map(({ state, new: added }) => ({ state, new: added }))).toEqual([{ state: 'done', new: 40 }]);
    expect(Date.parse((await site('cron-a')).nextSyncAt ?? 'null') - Date.now()).toBeGreaterThan(14 * MINUTE);
    // Not due any more: the next tick starts nothing.
    expect(await tick()).toMatchObject({ started: [], skipped: 0 });
  });

  it('re-drives a running sync that has made no progress for longer than a lease', { timeout: 60_000 }, async () => {
    expect((await api.post('/api/factory/sites', { rootUrl: api.site.rootUrl, siteId: 'cron-stale' })).status).toBe(201);
    api.site.delayMs = 2_000;
    const start = (await (await api.post('/api/factory/sites/cron-stale/sync', { budgetMs: 50 })).json()) as { syncId: string; state: string };
    api.site.delayMs = 0;
    expect(start.state).toBe('running');
    // Fresh: not the cron's to drive.
    expect((await tick()).advanced).toEqual([]);
    await db.query(`UPDATE syncs SET updated_at = now() - interval '10 minutes' WHERE sync_id = $1`, [start.syncId]);
    let summary = await tick();
    for (let ticks = 0; summary.advanced[0]?.state === 'running' && ticks < 5; ticks += 1) {
      await db.query(`UPDATE syncs SET updated_at = now() - interval '10 minutes' WHERE sync_id = $1`, [start.syncId]);
      summary = await tick();
    }
    expect(summary.advanced).toEqual([{ syncId: start.syncId, siteId: 'cron-stale', state: 'done' }]);
  });

  it('on Vercel without CRON_SECRET is refused with 500 config naming the variable', async () => {
    await api.configure({ VERCEL: '1' });
    try {
      const response = await cron(TOKEN);
      expect(response.status).toBe(500);
      expect(await response.json()).toMatchObject({ error: { kind: 'config', message: expect.stringContaining('CRON_SECRET') } });
    } finally {
      await api.configure({ CRON_SECRET: SECRET });
    }
  });
});
