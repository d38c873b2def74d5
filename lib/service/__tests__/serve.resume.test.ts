// A sync left `running` by a serve that was SIGKILLed goes on by itself when serve starts again on the same database:
// real processes, a Postgres schema of their own, a private Redis, and a slow loopback site. Along the way: the start's
// prompt 201, the 409 that says how to go on, and the access line per request with secrets redacted.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startTestRedis, type TestRedis } from '../../../test/helpers/redis-server.js';
import { type MutableSite, startMutableSite, useTestSchema } from '../../inventory/__tests__/inventory-fixtures.js';
import { startServe, syncWhenEnded, type ServeProcess } from './serve-process.js';

interface SyncBody {
  syncId: string;
  state: string;
  seen: number;
}

const PAGES = 3_000;

describe('serve resumes the syncs a killed server left running', () => {
  const { schema, databaseUrl, admin } = useTestSchema('inv_resume');
  let redis: TestRedis;
  let site: MutableSite;
  let serve: ServeProcess | null = null;

  beforeAll(async () => {
    [redis, site] = await Promise.all([startTestRedis(), startMutableSite(PAGES, 500)]);
  });
  afterAll(async () => {
    await serve?.stop('SIGKILL');
    await Promise.all([redis?.stop(), site?.close()]);
  });

  it('takes the sync to done after kill -9 and a restart, with nobody posting slices', { timeout: 240_000 }, async () => {
    const port = await freePort();
    const env = {
      DATABASE_URL: databaseUrl,
      REDIS_URL: redis.url,
      FACTORY_ALLOW_HOSTS: `127.0.0.1:${site.port}`,
      // Empty: the access log's default level (info) applies.
      LOG_LEVEL: '',
    };
    serve = await startServe({ port, env });
    const api = (path: string, init: RequestInit = {}) =>
      fetch(`${serve!.origin}/api/factory/sites${path}`, { ...init, headers: { 'content-type': 'application/json' } });
    expect((await api('', { method: 'POST', body: JSON.stringify({ rootUrl: site.rootUrl, siteId: 'slow', options: { concurrency: 1 } }) })).status).toBe(201);

    // Six child sitemaps of 1.5 s each, one at a time: the sync cannot end within its first slice.
    site.delayMs = 1_500;
    const startedAt = Date.now();
    const start = await api('/slow/sync', { method: 'POST' });
    const startMs = Date.now() - startedAt;
    expect(start.status).toBe(201);
    expect(startMs).toBeLessThan(2_500);
    const sync = (await start.json()) as SyncBody;
    expect(sync.state).toBe('running');
    const conflict = await api('/slow/sync', { method: 'POST' });
    expect(conflict.status).toBe(409);
    const message = ((await conflict.json()) as { error: { message: string } }).error.message;
    expect(message).toContain(`POST /api/factory/sites/slow/syncs/${sync.syncId}`);
    expect(message).toContain('POST /api/factory/sites/slow/sync/stop');
    expect((await api('/slow/urls?token=t0ps3cret&limit=5')).status).toBe(400);

    await sleep(1_000);
    expect(await serve.stop('SIGKILL')).toBeNull();
    const access = serve
      .stderr()
      .split('\n')
      .filter((line) => line.includes('"event":"access"'))
      .map((line) => JSON.parse(line) as { method: string; path: string; status: number; ms: number });
    expect(access.map(({ method, path, status }) => ({ method, path, status }))).toEqual([
      { method: 'POST', path: '/api/factory/sites', status: 201 },
      { method: 'POST', path: '/api/factory/sites/slow/sync', status: 201 },
      { method: 'POST', path: '/api/factory/sites/slow/sync', status: 409 },
      { method: 'GET', path: '/api/factory/sites/slow/urls?token=[redacted]&limit=5', status: 400 },
    ]);
    expect(access.every((line) => Number.isInteger(line.ms) && line.ms >= 0)).toBe(true);
    expect(serve.stderr()).not.toContain('t0ps3cret');
    const left = await admin.query<{ state: string }>(`SELECT state FROM ${schema}.syncs WHERE sync_id = $1`, [sync.syncId]);
    expect(left.rows[0]?.state).toBe('running');

    serve = await startServe({ port, env });
    expect(serve.stderr()).toContain(`resumed 1 running sync(s): ${sync.syncId}`);
    const now = await syncWhenEnded<SyncBody>(serve.origin, 'slow', sync.syncId, 150_000);
    expect(now).toMatchObject({ syncId: sync.syncId, state: 'done', seen: PAGES });
    // Only reads reached the second server: the sync was driven by the server itself.
    expect(serve.stderr()).not.toMatch(/"method":"POST"/);
  });
});
