// Managing sites over HTTP against a real Postgres schema and a loopback site: roots checked on create and PATCH with the
// deployment's network policy, PATCH of options and sub-tree, DELETE in batches (409 while a sync runs), a sync start
// that answers promptly whatever the site does, the 409 that says how to go on, and the query and method contracts.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../../lib/service/__tests__/http-fixtures.js';
import { startSitesApi, type SitesApi } from './sites-api-fixture.js';

interface SyncBody {
  syncId: string;
  state: string;
  seen: number;
}

describe('site management over HTTP', () => {
  let api: SitesApi;
  const patch = (path: string, body: unknown) => api.call(path, { method: 'PATCH', body: JSON.stringify(body) });
  const remove = (path: string) => api.call(path, { method: 'DELETE' });
  const syncToEnd = async (siteId: string, first: SyncBody): Promise<SyncBody> => {
    let sync = first;
    for (let step = 0; sync.state === 'running' && step < 200; step += 1) {
      sync = (await (await api.post(`/api/factory/sites/${siteId}/syncs/${sync.syncId}`, { budgetMs: 2_000 })).json()) as SyncBody;
    }
    return sync;
  };

  beforeAll(async () => {
    api = await startSitesApi({ name: 'inv_manage', token: 'manage-token', pages: 1_200 });
  });
  afterAll(async () => api?.close());

  it('refuses an empty authority and credentials (400 invalid_url) and a metadata or private root (422 blocked_ssrf)', async () => {
    await expectError(await api.post('/api/factory/sites', { rootUrl: 'http:///etc/passwd' }), 400, 'invalid_url');
    const credentials = await expectError(await api.post('/api/factory/sites', { rootUrl: 'https://user:s3cr3t@example.com/' }), 400, 'invalid_url');
    expect(credentials.error.message).toContain('credentials are never sent');
    expect(JSON.stringify(credentials)).not.toContain('s3cr3t');
    // Metadata stays closed even where private targets are open (FACTORY_ALLOW_PRIVATE=1 in this API).
    await expectError(await api.post('/api/factory/sites', { rootUrl: 'http://169.254.169.254/latest/' }), 422, 'blocked_ssrf');
    await api.configure({ FACTORY_ALLOW_PRIVATE: undefined });
    try {
      await expectError(await api.post('/api/factory/sites', { rootUrl: 'http://10.1.2.3/' }), 422, 'blocked_ssrf');
      // A name is resolved: localhost is loopback.
      await expectError(await api.post('/api/factory/sites', { rootUrl: `http://localhost:${new URL(api.site.rootUrl).port}/` }), 422, 'blocked_ssrf');
    } finally {
      await api.configure(null);
    }
    expect(((await (await api.call('/api/factory/sites')).json()) as { sites: unknown[] }).sites).toEqual([]);
  });

  it('patches options and the sub-tree (null removes one), checks a new root, and refuses bad bodies', async () => {
    expect((await api.post('/api/factory/sites', { rootUrl: api.site.rootUrl, siteId: 'shop', options: { maxUrls: 50, concurrency: 2 } })).status).toBe(201);
    const changed = await patch('/api/factory/sites/shop', { options: { maxUrls: null, timeoutMs: 5_000, filter: { pathPrefixes: ['/blog/'] } } });
    expect(changed.status).toBe(200);
    expect(await changed.json()).toMatchObject({
      siteId: 'shop',
      options: { concurrency: 2, timeoutMs: 5_000, filter: { pathPrefixes: ['/blog/'], locales: [] } },
    });
    expect(((await (await api.call('/api/factory/sites/shop')).json()) as { options: object }).options).not.toHaveProperty('maxUrls');
    // The options alone, as create's `options`, are a patch too.
    const bare = await patch('/api/factory/sites/shop', { maxUrls: 70 });
    expect(((await bare.json()) as { options: object }).options).toMatchObject({ maxUrls: 70, concurrency: 2 });
    expect((await patch('/api/factory/sites/shop', { maxUrls: null })).status).toBe(200);
    await expectError(await patch('/api/factory/sites/shop', { options: { maxUrls: -1 } }), 400, 'bad_request');
    await expectError(await patch('/api/factory/sites/shop', { options: { nope: 1 } }), 400, 'bad_request');
    await expectError(await patch('/api/factory/sites/shop', { options: { nope: null } }), 400, 'bad_request');
    await expectError(await patch('/api/factory/sites/shop', { color: 'red' }), 400, 'bad_request');
    await expectError(await patch('/api/factory/sites/shop', { rootUrl: 'https://a:b@example.com/' }), 400, 'invalid_url');
    await expectError(await patch('/api/factory/sites/shop', { rootUrl: 'http://169.254.169.254/' }), 422, 'blocked_ssrf');
    await expectError(await patch('/api/factory/sites/nosuch', { options: {} }), 404, 'not_found');
    // The sub-tree applies to the next sync: only /blog/ is kept.
    const sync = await syncToEnd('shop', (await (await api.post('/api/factory/sites/shop/sync', { budgetMs: 2_000 })).json()) as SyncBody);
    expect(sync.state).toBe('done');
    const blog = [...api.site.pages.keys()].filter((url) => url.includes('/blog/')).length;
    expect(((await (await api.call('/api/factory/sites')).json()) as { sites: unknown[] }).sites[0]).toMatchObject({ siteId: 'shop', urlCount: blog });
  });

  it('answers a sync start without budget with 201 within 2 s on a slow site, and a second start says how to go on', { timeout: 60_000 }, async () => {
    api.site.delayMs = 8_000;
    try {
      const startedAt = Date.now();
      const start = await api.post('/api/factory/sites/shop/sync');
      const ms = Date.now() - startedAt;
      expect(start.status).toBe(201);
      expect(ms).toBeLessThan(2_500);
      const sync = (await start.json()) as SyncBody;
      expect(sync.state).toBe('running');
      const second = await expectError(await api.post('/api/factory/sites/shop/sync'), 409, 'conflict');
      expect(second.error.message).toContain(`POST /api/factory/sites/shop/syncs/${sync.syncId}`);
      expect(second.error.message).toContain('POST /api/factory/sites/shop/sync/stop');
      // Neither changed nor deleted while it runs: one refusal, naming what waits, with the same ways on.
      const ways = `continue it with POST /api/factory/sites/shop/syncs/${sync.syncId}, or stop it with POST /api/factory/sites/shop/sync/stop`;
      const said = (message: string) => message.replace(/\(last moved [^)]+\)/, '(last moved T)');
      const refusal = (refused: string) => `site shop has a running sync ${sync.syncId} (last moved T): ${refused} until it ends; ${ways}`;
      expect(said(second.error.message)).toBe(refusal('another sync cannot start'));
      const patched = await expectError(await patch('/api/factory/sites/shop', { options: { maxUrls: 10 } }), 409, 'conflict');
      expect(said(patched.error.message)).toBe(refusal('its root URL and options cannot change'));
      const deleted = await expectError(await remove('/api/factory/sites/shop'), 409, 'conflict');
      expect(said(deleted.error.message)).toBe(refusal('it cannot be deleted'));
      expect((await api.post('/api/factory/sites/shop/sync/stop')).status).toBe(200);
    } finally {
      api.site.delayMs = 0;
    }
  });

  it('accepts en-US locales, /blog and nested prefixes, and names an unknown query parameter', async () => {
    api.site.pages.set(`${api.site.origin}/blog/2024/post-1`, { lastmod: '2026-01-02', changefreq: 'daily', priority: 0.4 });
    api.site.pages.set(`${api.site.origin}/en-us/blog/2024/post-2`, { lastmod: '2026-01-02', changefreq: 'daily', priority: 0.4 });
    const sync = await syncToEnd('shop', (await (await api.post('/api/factory/sites/shop/sync', { budgetMs: 2_000 })).json()) as SyncBody);
    expect(sync.state).toBe('done');
    const urls = async (query: string) =>
      ((await (await api.call(`/api/factory/sites/shop/urls?${query}&limit=1000`)).json()) as { urls: Array<{ url: string }> }).urls.map((row) => row.url);
    const blog = await urls('prefix=/blog/');
    expect(blog.length).toBeGreaterThan(2);
    expect(await urls('prefix=/blog')).toEqual(blog);
    expect(await urls('prefix=%2Fblog%2F2024%2F')).toEqual([`${api.site.origin}/blog/2024/post-1`, `${api.site.origin}/en-us/blog/2024/post-2`]);
    expect(await urls('prefix=/blog/2024')).toEqual(await urls('prefix=/blog/2024/'));
    expect(await urls('locale=en-US')).toEqual([`${api.site.origin}/en-us/blog/2024/post-2`]);
    expect(await urls('locale=en-us')).toEqual(await urls('locale=en-US'));
    const unknown = await expectError(await api.call('/api/factory/sites/shop/urls?prefix=/blog/&colour=red'), 400, 'bad_request');
    expect(unknown.error.message).toBe('unknown query parameter colour');
    const badLimit = await expectError(await api.call('/api/factory/sites/shop/urls?limit=0'), 400, 'bad_request');
    expect(badLimit.error.message).toMatch(/^query parameter limit: /);
  });

  it('answers a method a route lacks with 405 method_not_allowed and Allow', async () => {
    const put = await api.call('/api/factory/sites/shop', { method: 'PUT', body: '{}' });
    await expectError(put, 405, 'method_not_allowed');
    expect(put.headers.get('allow')).toBe('GET, POST, DELETE, PATCH, OPTIONS');
    const deleteList = await remove('/api/factory/sites');
    await expectError(deleteList, 405, 'method_not_allowed');
    expect(deleteList.headers.get('allow')).toBe('GET, POST');
    const patchSync = await patch('/api/factory/sites/shop/sync', {});
    expect(patchSync.headers.get('allow')).toBe('POST');
  });

  it('deletes a site in batches: every row of it gone, others kept, the id free again', async () => {
    expect((await api.post('/api/factory/sites', { rootUrl: api.site.rootUrl, siteId: 'other' })).status).toBe(201);
    const other = await syncToEnd('other', (await (await api.post('/api/factory/sites/other/sync', { budgetMs: 2_000 })).json()) as SyncBody);
    expect(other.state).toBe('done');
    const deleted = await remove('/api/factory/sites/shop');
    expect(deleted.status).toBe(200);
    const body = (await deleted.json()) as { siteId: string; deleted: boolean; rows: Record<string, number> };
    expect(body).toMatchObject({ siteId: 'shop', deleted: true, rows: { sites: 1 } });
    expect(body.rows.urls).toBeGreaterThan(400);
    expect(body.rows.syncs).toBeGreaterThanOrEqual(3);
    expect(body.rows.sync_parts).toBeGreaterThan(0);
    await expectError(await api.call('/api/factory/sites/shop'), 404, 'not_found');
    await expectError(await remove('/api/factory/sites/shop'), 404, 'not_found');
    const client = new pg.Client({ connectionString: api.databaseUrl });
    await client.connect();
    try {
      for (const table of ['urls', 'url_history', 'url_sitemaps', 'sitemaps', 'syncs', 'sitemap_validators', 'sites']) {
        const { rows } = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE site_id = 'shop'`);
        expect(rows[0]?.n, table).toBe(0);
      }
      const parts = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM sync_parts WHERE sync_id NOT IN (SELECT sync_id FROM syncs)`);
      expect(parts.rows[0]?.n).toBe(0);
      const kept = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM urls WHERE site_id = 'other'`);
      expect(kept.rows[0]?.n).toBe(api.site.pages.size);
    } finally {
      await client.end();
    }
    expect((await api.post('/api/factory/sites', { rootUrl: api.site.rootUrl, siteId: 'shop' })).status).toBe(201);
  });

  it('finishes a purge that was cut short: a site marked deleted with rows left is purged by the next DELETE', async () => {
    const client = new pg.Client({ connectionString: api.databaseUrl });
    await client.connect();
    try {
      // As a server killed between the mark and the last batch leaves it.
      await client.query(`UPDATE sites SET deleted_at = now() WHERE site_id = 'other'`);
      await expectError(await api.call('/api/factory/sites/other'), 404, 'not_found');
      const deleted = await remove('/api/factory/sites/other');
      expect(deleted.status).toBe(200);
      expect(await deleted.json()).toMatchObject({ siteId: 'other', deleted: true, rows: { urls: api.site.pages.size, sites: 1 } });
      const { rows } = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM urls WHERE site_id = 'other'`);
      expect(rows[0]?.n).toBe(0);
    } finally {
      await client.end();
    }
  });
});
