// The site list over HTTP against a real Postgres schema: 120 sites paged and searched through `q`, `limit` and
// `cursor`, each with its newest sync and next scheduled sync, and every malformed or unknown parameter a 400 naming it.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../../lib/service/__tests__/http-fixtures.js';
import { startSitesApi, type SitesApi } from './sites-api-fixture.js';

interface SitePageBody {
  sites: Array<{ siteId: string; schedule: string; nextSyncAt: string | null; lastSync: { syncId: string; state: string; seen: number } | null }>;
  nextCursor: string | null;
}

describe('GET /api/factory/sites', () => {
  let api: SitesApi;
  let db: pg.Client;
  const list = async (query: string): Promise<SitePageBody> => {
    const response = await api.call(`/api/factory/sites${query}`);
    expect(response.status, query).toBe(200);
    return (await response.json()) as SitePageBody;
  };

  beforeAll(async () => {
    api = await startSitesApi({ name: 'inv_list', token: 'list-token', pages: 300 });
    await list(''); // migrates the schema
    db = new pg.Client({ connectionString: api.databaseUrl });
    await db.connect();
    await db.query(
      `INSERT INTO sites (site_id, root_url, created_at, schedule_ms, next_sync_at)
       SELECT 'fleet-' || lpad(n::text, 3, '0'), 'https://' || CASE WHEN n % 10 = 3 THEN 'Shop' ELSE 'www' END || n || '.example/',
              timestamptz '2026-01-01T00:00:00Z' + n * interval '1 second', CASE WHEN n % 2 = 0 THEN 86400000 END,
              CASE WHEN n % 2 = 0 THEN timestamptz '2026-01-02T00:00:00Z' END
       FROM generate_series(0, 119) n`,
    );
  }, 60_000);
  afterAll(async () => {
    await db?.end();
    await api?.close();
  });

  it('pages 50 at a time through every site, and searches id or root URL in any case', async () => {
    const ids: string[] = [];
    let cursor: string | null = null;
    do {
      const page: SitePageBody = await list(`?limit=50${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.sites.length).toBeLessThanOrEqual(50);
      ids.push(...page.sites.map((site) => site.siteId));
      cursor = page.nextCursor;
    } while (cursor !== null);
    expect(ids).toEqual(Array.from({ length: 120 }, (_, n) => `fleet-${String(n).padStart(3, '0')}`));

    const shops = await list('?q=SHOP&limit=5');
    expect(shops.sites.map((site) => site.siteId)).toEqual(['fleet-003', 'fleet-013', 'fleet-023', 'fleet-033', 'fleet-043']);
    const more = await list(`?q=SHOP&limit=5&cursor=${shops.nextCursor}`);
    expect(more.sites.map((site) => site.siteId)).toEqual(['fleet-053', 'fleet-063', 'fleet-073', 'fleet-083', 'fleet-093']);
    expect((await list(`?q=shop&limit=5&cursor=${more.nextCursor}`)).sites.map((site) => site.siteId)).toEqual(['fleet-103', 'fleet-113']);
    expect((await list('?q=fleet-00')).sites.map((site) => [site.siteId, site.schedule, site.nextSyncAt])).toEqual(
      Array.from({ length: 10 }, (_, n) => [`fleet-00${n}`, n % 2 === 0 ? '24h' : 'off', n % 2 === 0 ? '2026-01-02T00:00:00.000Z' : null]),
    );
  });

  it("shows each site's newest sync, running then done", { timeout: 120_000 }, async () => {
    const created = await api.post('/api/factory/sites', { rootUrl: api.site.rootUrl, siteId: 'synced' });
    expect(created.status).toBe(201);
    expect((await list('?q=synced')).sites[0]?.lastSync).toBeNull();
    // A slow site: the first 1 ms slice cannot finish it.
    api.site.delayMs = 500;
    let sync = (await (await api.post('/api/factory/sites/synced/sync', { budgetMs: 1 })).json()) as { syncId: string; state: string; seen: number };
    expect(sync.state).toBe('running');
    expect((await list('?q=synced')).sites[0]?.lastSync).toMatchObject({ syncId: sync.syncId, state: 'running' });
    api.site.delayMs = 0;
    for (let step = 0; sync.state === 'running' && step < 200; step += 1) {
      sync = (await (await api.post(`/api/factory/sites/synced/syncs/${sync.syncId}`, { budgetMs: 2_000 })).json()) as typeof sync;
    }
    expect(sync.state).toBe('done');
    expect((await list('?q=synced')).sites[0]?.lastSync).toMatchObject({ syncId: sync.syncId, state: 'done', seen: 300 });
  });

  it('answers 400 naming an unknown parameter, a bad limit and a forged cursor', async () => {
    const refused = async (query: string) => (await expectError(await api.call(`/api/factory/sites${query}`), 400, 'bad_request')).error.message;
    expect(await refused('?page=2')).toBe('unknown query parameter page');
    expect(await refused('?q=a&limti=10')).toBe('unknown query parameter limti');
    for (const limit of ['0', '1001', 'ten']) expect(await refused(`?limit=${limit}`)).toMatch(/^query parameter limit: /);
    expect(await refused('?cursor=nope')).toBe('invalid cursor: pass the nextCursor of the page before');
  });
});
