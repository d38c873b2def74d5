// The service's edges, handlers called directly and through the local server `serve` runs: a store that cannot
// serve (503 with Retry-After), configuration refusals, DELETE of a job, 405 with Allow, and CORS.
import { fileURLToPath } from 'node:url';
import { createClient } from 'redis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startDemoSite, type DemoSite } from '../../../lib/demo/demo-site.js';
import { listApiRoutes, loadRouteModule, ROUTE_METHODS } from '../../../lib/service/api-routes.js';
import { expectError, expectStatus, getRequest, openRedisProbe, postRequest, type RedisProbe } from '../../../lib/service/__tests__/http-fixtures.js';
import { startLocalApiServer, type LocalApiServer } from '../../../lib/service/local-server.js';
import { testDeployment, type TestDeployment } from '../../../lib/service/__tests__/test-deployment.js';
import { jobKeyPrefix } from '../../../lib/store/keys.js';
import * as scripts from '../../../lib/store/scripts/job-scripts.js';
import { startTestRedis, type TestRedis } from '../../../test/helpers/redis-server.js';
import { startUpstashProxy, type UpstashProxy } from '../../../test/helpers/upstash-proxy.js';
import * as discoverRoute from '../discover.js';

const API_DIR = fileURLToPath(new URL('../../', import.meta.url));
const DISCOVER = '/api/factory/discover';
const WIZARD = 'https://wizard.example.com';
const TOKEN = 'edges-token';

function deleteRequest(query: Record<string, string>, headers: Record<string, string> = {}): Request {
  return new Request(`http://localhost${DISCOVER}?${new URLSearchParams(query)}`, { method: 'DELETE', headers });
}

describe('service edges', () => {
  let redis: TestRedis;
  let site: DemoSite;
  let probe: RedisProbe;
  let admin: ReturnType<typeof createClient>;
  let server: LocalApiServer;
  let deployment: TestDeployment;
  let discover: ReturnType<typeof discoverRoute.routes>;

  /** Runs `act` with some variables on top of the deployment's own (undefined: unset), its own again after. */
  async function withEnv<T>(vars: Record<string, string | undefined>, act: () => Promise<T>): Promise<T> {
    await deployment.configure(vars);
    try {
      return await act();
    } finally {
      await deployment.configure(null);
    }
  }

  beforeAll(async () => {
    [redis, site] = await Promise.all([startTestRedis(), startDemoSite({ scale: 0.01 })]);
    probe = await openRedisProbe(redis.url);
    admin = createClient({ url: redis.url });
    await admin.connect();
    deployment = testDeployment({
      REDIS_URL: redis.url,
      FACTORY_ALLOW_HOSTS: `127.0.0.1:${site.port}`,
      FACTORY_CORS_ORIGINS: `${WIZARD},http://localhost:5173`,
    });
    discover = discoverRoute.routes(deployment.source);
    server = await startLocalApiServer(API_DIR, { host: '127.0.0.1', port: 0 }, deployment.source);
  });
  afterEach(async () => deployment.configure(null));
  afterAll(async () => {
    await server?.close();
    await deployment?.release();
    await admin?.quit();
    await probe?.close();
    await Promise.all([redis?.stop(), site?.close()]);
  });

  describe('a store that cannot serve right now', () => {
    it('answers 503 store_unavailable with Retry-After when Redis is out of memory, never 409 or a script SHA', async () => {
      await admin.configSet('maxmemory', '1');
      let response: Response;
      try {
        response = await discover.POST(postRequest(DISCOVER, { rootUrl: site.rootUrl, budgetMs: 500 }));
      } finally {
        await admin.configSet('maxmemory', '0');
      }
      expect(response.headers.get('retry-after')).toBe('2');
      const body = await expectError(response, 503, 'store_unavailable');
      for (const script of Object.values(scripts)) expect(body.error.message).not.toContain(script.sha);
      expect(body.error.message).not.toMatch(/@user_script|maxmemory/);
    });

    it('answers 503 store_unavailable when the Upstash endpoint answers 502', async () => {
      const proxy: UpstashProxy = await startUpstashProxy(redis.url);
      try {
        await withEnv({ REDIS_URL: undefined, KV_REST_API_URL: proxy.url, KV_REST_API_TOKEN: proxy.token }, async () => {
          proxy.setFailure(502);
          const response = await discover.GET(getRequest(DISCOVER, { jobId: 'AAAAAAAAAAAAAAAAAAAAAA' }));
          expect(response.headers.get('retry-after')).toBe('2');
          await expectError(response, 503, 'store_unavailable');
        });
      } finally {
        await proxy.close();
      }
    });
  });

  describe('configuration', () => {
    it('on Vercel without a store, refuses jobs with 500 config naming the variables to set', async () => {
      await withEnv({ REDIS_URL: undefined, VERCEL: '1', FACTORY_API_TOKEN: TOKEN }, async () => {
        const response = await discover.POST(postRequest(DISCOVER, { rootUrl: site.rootUrl }, { authorization: `Bearer ${TOKEN}` }));
        const body = await expectError(response, 500, 'config');
        expect(body.error.message).toMatch(/REDIS_URL.*UPSTASH_REDIS_REST_URL.*KV_REST_API_URL/);
      });
    });
  });

  describe('DELETE /api/factory/discover?jobId=', () => {
    it('removes the job and every key it owns (shards, leases), then answers 404', async () => {
      const started = await expectStatus(await discover.POST(postRequest(DISCOVER, { rootUrl: site.rootUrl, budgetMs: 1_500 })), 201);
      const prefix = jobKeyPrefix(started.jobId);
      expect((await probe.keys()).filter((key) => key.startsWith(prefix)).length).toBeGreaterThan(0);
      const response = await discover.DELETE(deleteRequest({ jobId: started.jobId }));
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ jobId: started.jobId, deleted: true });
      expect((await probe.keys()).filter((key) => key.startsWith(prefix))).toEqual([]);
      await expectError(await discover.GET(getRequest(DISCOVER, { jobId: started.jobId })), 404, 'not_found');
      await expectError(await discover.DELETE(deleteRequest({ jobId: started.jobId })), 404, 'not_found');
    });

    it('refuses a malformed or missing id (400) before touching the store', async () => {
      const keys = await probe.keys();
      await expectError(await discover.DELETE(deleteRequest({ jobId: '*' })), 400, 'bad_request');
      await expectError(await discover.DELETE(deleteRequest({})), 400, 'bad_request');
      expect(await probe.keys()).toEqual(keys);
    });

    it('asks for the bearer token like every route', async () => {
      await deployment.configure({ FACTORY_API_TOKEN: TOKEN });
      await expectError(await discover.DELETE(deleteRequest({ jobId: 'AAAAAAAAAAAAAAAAAAAAAA' })), 401, 'unauthorized');
    });
  });

  describe('methods and CORS', () => {
    it('answers a method a route does not serve with 405 and Allow', async () => {
      const put = await fetch(`${server.origin}/api/factory/discover`, { method: 'PUT', body: '{}' });
      expect(put.status).toBe(405);
      expect(put.headers.get('allow')).toBe('GET, POST, DELETE, OPTIONS');
      const del = await fetch(`${server.origin}/api/factory/estimate`, { method: 'DELETE' });
      expect(del.status).toBe(405);
      expect(del.headers.get('allow')).toBe('GET, POST, OPTIONS');
    });

    it('answers a preflight from a listed origin: 204, the methods, Authorization, Content-Type and Idempotency-Key, Max-Age, Vary', async () => {
      const response = await fetch(`${server.origin}/api/factory/discover`, {
        method: 'OPTIONS',
        headers: { origin: WIZARD, 'access-control-request-method': 'DELETE', 'access-control-request-headers': 'authorization, content-type' },
      });
      expect(response.status).toBe(204);
      expect(Object.fromEntries(response.headers)).toMatchObject({
        'access-control-allow-origin': WIZARD,
        'access-control-allow-methods': 'GET, POST, DELETE, OPTIONS',
        'access-control-allow-headers': 'Authorization, Content-Type, Idempotency-Key',
        'access-control-max-age': '600',
        vary: 'Origin',
        allow: 'GET, POST, DELETE, OPTIONS',
      });
      expect(response.headers.get('access-control-allow-credentials')).toBeNull();
    });

    it('gives an unlisted origin no CORS headers, on a preflight or a request', async () => {
      const headers = { origin: 'https://evil.example.com', 'access-control-request-method': 'POST' };
      const preflight = await fetch(`${server.origin}/api/factory/discover`, { method: 'OPTIONS', headers });
      const get = await fetch(`${server.origin}/api/factory/discover?jobId=AAAAAAAAAAAAAAAAAAAAAA`, { headers: { origin: 'https://evil.example.com' } });
      for (const response of [preflight, get]) {
        expect([...response.headers.keys()].filter((name) => name.startsWith('access-control-'))).toEqual([]);
        expect(response.headers.get('vary')).toBe('Origin');
      }
    });

    it('echoes a listed origin (never *) on answers and errors alike, refusals included', async () => {
      await deployment.configure({ FACTORY_API_TOKEN: TOKEN });
      const refused = await discover.GET(getRequest(DISCOVER, { jobId: 'AAAAAAAAAAAAAAAAAAAAAA' }, { origin: 'http://localhost:5173' }));
      expect(refused.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
      expect(refused.headers.get('access-control-expose-headers')).toBe('Retry-After');
      await expectError(refused, 401, 'unauthorized');
      const served = await discover.GET(getRequest(DISCOVER, { jobId: 'AAAAAAAAAAAAAAAAAAAAAA' }, { origin: WIZARD, authorization: `Bearer ${TOKEN}` }));
      expect(served.headers.get('access-control-allow-origin')).toBe(WIZARD);
      expect(served.headers.get('vary')).toBe('Origin');
    });

    it('every route under api/ exports an OPTIONS whose Allow lists exactly the methods it exports', async () => {
      const routes = await listApiRoutes(API_DIR);
      expect(routes.length).toBeGreaterThan(1);
      for (const route of routes) {
        const module = await loadRouteModule(route);
        expect(module.OPTIONS, `${route.path} exports OPTIONS`).toBeTypeOf('function');
        const exported = ROUTE_METHODS.filter((method) => typeof module[method] === 'function');
        const answer = await module.OPTIONS!(new Request(`http://localhost${route.path}`, { method: 'OPTIONS' }));
        expect(answer.status).toBe(204);
        expect(answer.headers.get('allow')?.split(', ').sort(), route.path).toEqual([...exported].sort());
      }
    });
  });
});
