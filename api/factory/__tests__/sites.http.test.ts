// The sites API through the local server (the same routing `serve` uses): sites, syncs, URL listing, NDJSON and history.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalApiServer } from '../../../lib/service/local-server.js';
import type { MutableSite } from '../../../lib/inventory/__tests__/inventory-fixtures.js';
import { startSitesApi, type SitesApi } from './sites-api-fixture.js';

const TOKEN = 'sites-test-token';

interface SyncBody {
  syncId: string;
  state: string;
  seen: number;
  removed: number;
}

describe('sites API', () => {
  let api: SitesApi;
  let server: LocalApiServer;
  let site: MutableSite;
  const call = (path: string, init: RequestInit = {}) => api.call(path, init);
  const post = (path: string, body: unknown = {}) => api.post(path, body);

  beforeAll(async () => {
    api = await startSitesApi({ name: 'inv_http', token: TOKEN, pages: 2_500 });
    ({ server, site } = api);
  });
  afterAll(async () => api?.close());

  it('adds a site (201), refuses a taken id (409), a malformed id (400) and a missing token (401)', async () => {
    const created = await post('/api/factory/sites', { rootUrl: site.rootUrl, siteId: 'shop' });
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({ siteId: 'shop', rootUrl: site.rootUrl });
    expect((await post('/api/factory/sites', { rootUrl: site.rootUrl, siteId: 'shop' })).status).toBe(409);
    const bad = await post('/api/factory/sites', { rootUrl: site.rootUrl, siteId: 'Bad Id!' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { kind: 'bad_request' } });
    expect((await fetch(`${server.origin}/api/factory/sites`)).status).toBe(401);
    expect((await call('/api/factory/sites/Bad!Id/syncs')).status).toBe(400);
    expect((await call('/api/factory/sites/nosuch/syncs')).status).toBe(404);
  });

  it('syncs over HTTP: 201 start, 409 for a second start naming the running sync, slices until done', { timeout: 120_000 }, async () => {
    const start = await post('/api/factory/sites/shop/sync', { budgetMs: 200 });
    expect(start.status).toBe(201);
    let sync = (await start.json()) as SyncBody;
    if (sync.state === 'running') {
      const second = await post('/api/factory/sites/shop/sync', { budgetMs: 200 });
      expect(second.status).toBe(409);
      expect(await second.json()).toMatchObject({ error: { kind: 'conflict', message: expect.stringContaining(sync.syncId) } });
    }
    for (let step = 0; sync.state === 'running' && step < 200; step += 1) {
      sync = (await (await post(`/api/factory/sites/shop/syncs/${sync.syncId}`, { budgetMs: 2_000 })).json()) as SyncBody;
    }
    expect(sync).toMatchObject({ state: 'done', seen: 2_500 });
    expect(await (await call(`/api/factory/sites/shop/syncs/${sync.syncId}`)).json()).toMatchObject({
      state: 'done',
      seen: 2_500,
      keptUnread: 0,
      failedSitemaps: [],
    });
    const list = (await (await call('/api/factory/sites/shop/syncs')).json()) as { syncs: SyncBody[] };
    expect(list.syncs[0]?.syncId).toBe(sync.syncId);
    const sites = (await (await call('/api/factory/sites')).json()) as { sites: Array<{ siteId: string; urlCount: number; lastSync: SyncBody }> };
    expect(sites.sites.find((entry) => entry.siteId === 'shop')).toMatchObject({ urlCount: 2_500, lastSync: { syncId: sync.syncId, state: 'done' } });
  });

  it('pages URLs by keyset with combinable filters, streams them as NDJSON and shows a URL history', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = `prefix=${encodeURIComponent('/shop/')}&locale=fr&limit=300${cursor ? `&cursor=${cursor}` : ''}`;
      const page = (await (await call(`/api/factory/sites/shop/urls?${query}`)).json()) as {
        urls: Array<{ url: string; locale: string }>;
        nextCursor: string | null;
      };
      seen.push(...page.urls.map((row) => row.url));
      cursor = page.nextCursor;
    } while (cursor !== null);
    const expected = [...site.pages.keys()].filter((url) => url.includes('/fr/shop/')).sort();
    expect(seen).toEqual(expected);

    const stream = await call('/api/factory/sites/shop/urls?prefix=%2Fblog%2F', { headers: { accept: 'application/x-ndjson' } });
    expect(stream.headers.get('content-type')).toContain('application/x-ndjson');
    const lines = (await stream.text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { url: string });
    expect(lines.map((row) => row.url)).toEqual([...site.pages.keys()].filter((url) => url.includes('/blog/')).sort());

    const url = expected[0]!;
    const history = await call(`/api/factory/sites/shop/urls/${encodeURIComponent(url)}/history`);
    expect(await history.json()).toEqual({ url, history: [] });
    expect((await call(`/api/factory/sites/shop/urls/${encodeURIComponent(`${url}-missing`)}/history`)).status).toBe(404);
  });

  it('refuses a bad prefix, locale, cursor or limit with 400', async () => {
    for (const query of ['prefix=blog', 'locale=EN_us!', 'cursor=%25%25', 'limit=1001', 'limit=0', 'changedSince=yesterday', 'removed=maybe', 'offset=10']) {
      const response = await call(`/api/factory/sites/shop/urls?${query}`);
      expect(response.status, query).toBe(400);
    }
  });

  it('stops a running sync (200) and a site without one answers 404', async () => {
    site.pages.clear();
    const start = (await (await post('/api/factory/sites/shop/sync', { budgetMs: 1 })).json()) as SyncBody;
    if (start.state === 'running') {
      const stopped = await post('/api/factory/sites/shop/sync/stop');
      expect(stopped.status).toBe(200);
      expect(await stopped.json()).toMatchObject({ syncId: start.syncId, state: 'stopped', removed: 0 });
    }
    expect((await post('/api/factory/sites/shop/sync/stop')).status).toBe(404);
    const sites = (await (await call('/api/factory/sites')).json()) as { sites: Array<{ siteId: string; urlCount: number }> };
    expect(sites.sites.find((entry) => entry.siteId === 'shop')?.urlCount).toBe(2_500);
  });
});
