// `serve` started while its database and Redis are unreachable starts anyway: health and every route that needs them
// answer 503 `store_unavailable` with Retry-After, and once they answer it recovers by itself (its pg-boss worker then
// drives a sync to done). It exited 1 before. Both sit behind TCP proxies that reset every connection until let through.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { startDemoSite, type DemoSite } from '../../demo/demo-site.js';
import { TEST_DATABASE_URL, useTestSchema } from '../../inventory/__tests__/inventory-fixtures.js';
import { freePort, startTestRedis, type TestRedis } from '../../../test/helpers/redis-server.js';
import { startTcpFaultProxy, type TcpFaultProxy } from '../../../test/helpers/tcp-fault-proxy.js';
import { BUILT_BIN, postSites, startServe, syncWhenEnded, type ServeProcess } from './serve-process.js';

describe('serve with its database and Redis down at start', () => {
  const { schema } = useTestSchema('serve_deps_down');
  let demo: DemoSite;
  let redis: TestRedis;
  let dbProxy: TcpFaultProxy;
  let redisProxy: TcpFaultProxy;
  let serve: ServeProcess | null = null;

  beforeAll(async () => {
    demo = await startDemoSite();
    redis = await startTestRedis();
    const database = new URL(TEST_DATABASE_URL);
    dbProxy = await startTcpFaultProxy({ host: database.hostname, port: Number(database.port || 5432) });
    redisProxy = await startTcpFaultProxy({ host: '127.0.0.1', port: Number(new URL(redis.url).port) });
  });
  afterAll(async () => {
    await serve?.stop('SIGKILL');
    await Promise.all([dbProxy?.close(), redisProxy?.close(), demo?.close(), redis?.stop()]);
  });

  it('serves 503 store_unavailable with Retry-After, then recovers by itself and syncs', { timeout: 120_000 }, async () => {
    const down = () => 'reset' as const;
    dbProxy.setPlan(down);
    redisProxy.setPlan(down);
    const proxied = new URL(TEST_DATABASE_URL);
    proxied.host = `127.0.0.1:${dbProxy.port}`;
    proxied.searchParams.set('options', `-c search_path=${schema}`);
    serve = await startServe({
      port: await freePort(),
      bin: BUILT_BIN,
      env: { DATABASE_URL: proxied.href, REDIS_URL: `redis://127.0.0.1:${redisProxy.port}`, FACTORY_ALLOW_HOSTS: new URL(demo.rootUrl).host },
    });
    expect(serve.stderr()).toMatch(
      /warning: the inventory database is unavailable: .*: serving 503 store_unavailable until it answers \(trying again every 5 s\)/,
    );
    for (const path of ['/api/factory/health', '/api/factory/sites']) {
      const response = await fetch(`${serve.origin}${path}`);
      expect(response.status, path).toBe(503);
      expect(response.headers.get('retry-after'), path).toMatch(/^\d+$/);
      expect(await response.json(), path).toMatchObject({ error: { kind: 'store_unavailable' } });
    }

    dbProxy.setPlan(null);
    redisProxy.setPlan(null);
    for (let waited = 0; waited < 30_000 && !serve.stderr().includes('answer again'); waited += 250) await sleep(250);
    expect(serve.stderr()).toContain('the database and the job store answer again: background syncs running');
    expect((await fetch(`${serve.origin}/api/factory/health`)).status).toBe(200);
    expect((await postSites(serve.origin, '', { rootUrl: demo.rootUrl, siteId: 'demo' })).status).toBe(201);
    const started = await postSites(serve.origin, '/demo/sync', {});
    expect(started.status).toBe(201);
    const { syncId } = (await started.json()) as { syncId: string };
    const sync = await syncWhenEnded<{ state: string; seen: number }>(serve.origin, 'demo', syncId, 60_000);
    expect(sync).toMatchObject({ state: 'done', seen: demo.expectation.all.pageUrls });
    expect(await serve.stop('SIGTERM')).toBe(0);
    serve = null;
  });
});
