// `serve` advances the syncs it starts by itself: with background syncs enabled (as `serve` enables them), a sync
// started over HTTP reaches `done` while the caller only reads its status, never asking for another slice.
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DATABASE_URL, startMutableSite, type MutableSite } from '../../../lib/inventory/__tests__/inventory-fixtures.js';
import { enableBackgroundSyncs } from '../../../lib/http/background-syncs.js';
import { resetInventoryDb } from '../../../lib/http/inventory-context.js';
import { startLocalApiServer, type LocalApiServer } from '../../../lib/http/local-server.js';
import { resetServiceStore } from '../../../lib/http/service.js';

const API_DIR = fileURLToPath(new URL('../../', import.meta.url));
const TOKEN = 'background-token';
const schema = `inv_bg_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;

describe('syncs advanced in the background by a long-lived server', () => {
  let server: LocalApiServer;
  let site: MutableSite;
  let background: { stop(): Promise<void> };
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  const call = (path: string, init: RequestInit = {}) =>
    fetch(`${server.origin}${path}`, { ...init, headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', ...init.headers } });
  const post = (path: string, body: unknown = {}) => call(path, { method: 'POST', body: JSON.stringify(body) });

  beforeAll(async () => {
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    Object.assign(process.env, {
      DATABASE_URL: `${TEST_DATABASE_URL}?options=${encodeURIComponent(`-c search_path=${schema}`)}`,
      FACTORY_API_TOKEN: TOKEN,
      FACTORY_ALLOW_PRIVATE: '1',
    });
    delete process.env.REDIS_URL;
    site = await startMutableSite(3_000);
    // Slow children: the first slice cannot finish the site, so only the background can.
    site.delayMs = 150;
    background = enableBackgroundSyncs();
    server = await startLocalApiServer(API_DIR, { host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await server?.close();
    await background?.stop();
    await site?.close();
    await resetInventoryDb();
    await resetServiceStore();
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
  });

  it('takes a sync started with one short slice to done while the caller only polls its status', { timeout: 120_000 }, async () => {
    expect((await post('/api/factory/sites', { rootUrl: site.rootUrl, siteId: 'bg', options: { concurrency: 1 } })).status).toBe(201);
    const start = await post('/api/factory/sites/bg/sync', { budgetMs: 100 });
    expect(start.status).toBe(201);
    let sync = (await start.json()) as { syncId: string; state: string; seen: number };
    expect(sync.state).toBe('running');
    for (let polls = 0; sync.state === 'running' && polls < 400; polls += 1) {
      await sleep(250);
      sync = (await (await call(`/api/factory/sites/bg/syncs/${sync.syncId}`)).json()) as typeof sync;
    }
    expect(sync).toMatchObject({ state: 'done', seen: 3_000 });
  });
});
