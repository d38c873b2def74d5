// A site's sitemaps over HTTP: each one's record after real syncs (a child failing, then back), failing first,
// filtered and paged; one sitemap with the history of its reads; and the errors that say what to do next.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SitemapReadSchema, SitemapRecordSchema } from '../../../lib/inventory/index.js';
import { expectError } from '../../../lib/service/__tests__/http-fixtures.js';
import { startSitesApi, type SitesApi } from './sites-api-fixture.js';

interface SyncBody {
  syncId: string;
  state: string;
}

describe("a site's sitemaps over HTTP", () => {
  let api: SitesApi;
  const base = '/api/factory/sites/maps';
  const sync = async (): Promise<SyncBody> => {
    let body = (await (await api.post(`${base}/sync`, { budgetMs: 2_000 })).json()) as SyncBody;
    for (let step = 0; body.state === 'running' && step < 200; step += 1) {
      body = (await (await api.post(`${base}/syncs/${body.syncId}`, { budgetMs: 2_000 })).json()) as SyncBody;
    }
    return body;
  };

  beforeAll(async () => {
    api = await startSitesApi({ name: 'inv_sitemaps', token: 'maps-token', pages: 2_000 });
    expect((await api.post('/api/factory/sites', { rootUrl: api.site.rootUrl, siteId: 'maps' })).status).toBe(201);
  });
  afterAll(async () => api?.close());

  it('lists every sitemap a sync read, failing first, and gives one with its reads', { timeout: 120_000 }, async () => {
    expect(await sync()).toMatchObject({ state: 'done' });
    api.site.failing.add('/sm-1.xml');
    expect(await sync()).toMatchObject({ state: 'done' });
    const response = await api.call(`${base}/sitemaps`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { sitemaps: unknown[]; nextCursor: string | null };
    const sitemaps = body.sitemaps.map((row) => SitemapRecordSchema.parse(row));
    expect(body.nextCursor).toBeNull();
    const rows = sitemaps.map((s) => [s.url.replace(api.site.origin, ''), s.status]);
    expect(rows[0]).toEqual(['/sm-1.xml', 'failed']);
    expect(rows.slice(1).sort()).toEqual([
      ['/sitemap.xml', 'ok'],
      ['/sm-0.xml', 'ok'],
    ]);
    expect(sitemaps).toHaveLength(3);
    expect(sitemaps[0]).toMatchObject({ failStreak: 1, urls: 1_000, failure: { kind: 'http_status', httpStatus: 503 }, foundVia: 'index' });

    const one = await api.call(`${base}/sitemaps/${sitemaps[0]?.sitemapId}`);
    const detail = (await one.json()) as { reads: unknown[] };
    expect(SitemapRecordSchema.parse(detail)).toMatchObject({ status: 'failed' });
    expect(detail.reads.map((read) => SitemapReadSchema.parse(read).status)).toEqual(['failed', 'ok']);
  });

  it('filters by status and kind, pages by cursor, and refuses what it cannot read', async () => {
    const failed = (await (await api.call(`${base}/sitemaps?status=failed`)).json()) as { sitemaps: Array<{ url: string }> };
    expect(failed.sitemaps.map((s) => s.url)).toEqual([api.site.url('/sm-1.xml')]);
    const indexes = (await (await api.call(`${base}/sitemaps?kind=sitemapindex`)).json()) as { sitemaps: Array<{ children: number }> };
    expect(indexes.sitemaps).toMatchObject([{ children: 2 }]);
    const page = (await (await api.call(`${base}/sitemaps?limit=2`)).json()) as { sitemaps: unknown[]; nextCursor: string };
    expect(page.sitemaps).toHaveLength(2);
    const rest = (await (await api.call(`${base}/sitemaps?limit=2&cursor=${page.nextCursor}`)).json()) as { sitemaps: unknown[]; nextCursor: null };
    expect(rest).toMatchObject({ nextCursor: null });
    expect(rest.sitemaps).toHaveLength(1);

    await expectError(await api.call(`${base}/sitemaps?status=broken`), 400, 'bad_request');
    await expectError(await api.call(`${base}/sitemaps?cursor=nope`), 400, 'bad_request');
    await expectError(await api.call(`${base}/sitemaps?sort=url`), 400, 'bad_request');
    await expectError(await api.call(`${base}/sitemaps/abc`), 400, 'bad_request');
    const missing = await expectError(await api.call(`${base}/sitemaps/999999`), 404, 'not_found');
    expect(missing.error.message).toContain(`GET /api/factory/sites/maps/sitemaps`);
    await expectError(await api.call('/api/factory/sites/nobody/sitemaps'), 404, 'not_found');
    await expectError(await api.call(`${base}/sitemaps`, { method: 'POST' }), 405, 'method_not_allowed');
  });
});
