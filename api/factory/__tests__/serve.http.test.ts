// The same handlers through `crawler-factory serve` (a child process on a free port), with plain HTTP requests as
// curl would send them: the route mapping, the job flow over Redis, refusals, auth, and a clean stop.
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobStatus } from '../../../lib/core/types.js';
import { startDemoSite, type DemoSite } from '../../../lib/demo/demo-site.js';
import { freePort, startTestRedis, type TestRedis } from '../../../test/helpers/redis-server.js';
import {
  demoGroundTruth,
  expectError,
  expectExactlyOnce,
  expectStatus,
  openRedisProbe,
  ShardBodySchema,
  type RedisProbe,
} from '../../../lib/service/__tests__/http-fixtures.js';
import { startServe, type ServeProcess } from '../../../lib/service/__tests__/serve-process.js';

const TOKEN = 'serve-test-token';

/** `curl -X POST -H 'content-type: application/json' -d <body> <origin><path>` */
function post(origin: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return fetch(`${origin}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: text });
}

/** A request with the path sent exactly as written (fetch would normalise `..` away). */
function rawGet(origin: string, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${origin}/`, { path, method: 'GET' }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on('error', reject);
    request.end();
  });
}

describe('crawler-factory serve', () => {
  let redis: TestRedis;
  let site: DemoSite;
  let truth: Set<string>;
  let probe: RedisProbe;
  let open: ServeProcess;
  let guarded: ServeProcess;
  let onVercel: ServeProcess;

  beforeAll(async () => {
    [redis, site] = await Promise.all([startTestRedis(), startDemoSite({ scale: 0.02 })]);
    const env = { REDIS_URL: redis.url, FACTORY_ALLOW_HOSTS: `127.0.0.1:${site.port}` };
    const [a, b, c] = await Promise.all([freePort(), freePort(), freePort()]);
    [open, guarded, onVercel, probe, truth] = await Promise.all([
      startServe({ port: a, env }),
      startServe({ port: b, env: { ...env, FACTORY_API_TOKEN: TOKEN } }),
      startServe({ port: c, env: { ...env, VERCEL: '1' } }),
      openRedisProbe(redis.url),
      demoGroundTruth(site),
    ]);
  }, 180_000);
  afterAll(async () => {
    await Promise.all([open?.stop('SIGKILL'), guarded?.stop('SIGKILL'), onVercel?.stop('SIGKILL')]);
    await probe?.close();
    await Promise.all([redis?.stop(), site?.close()]);
  });

  it('maps /api/factory/{estimate,discover} to the handler files and prints them', () => {
    expect(open.stderr()).toMatch(
      /serving \/api\/factory\/cron, \/api\/factory\/discover, \/api\/factory\/estimate, \/api\/factory\/health, \/api\/factory\/sites, \/api\/factory\/slice-failed, \/api\/factory\/slice on http:\/\/127\.0\.0\.1:\d+/,
    );
  });

  it('estimates the site by POST and by GET (200)', async () => {
    const byPost = await post(open.origin, '/api/factory/estimate', { rootUrl: site.rootUrl });
    const byGet = await fetch(`${open.origin}/api/factory/estimate?rootUrl=${encodeURIComponent(site.rootUrl)}`);
    for (const response of [byPost, byGet]) {
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ rootUrl: site.rootUrl });
    }
  });

  it('runs a job to done: start 201, continue 200, status, every shard (404 past the end), each URL once', async () => {
    let status = await expectStatus(await post(open.origin, '/api/factory/discover', { rootUrl: site.rootUrl, budgetMs: 300 }), 201);
    for (let calls = 1; status.state === 'running' && calls < 200; calls += 1) {
      status = await expectStatus(await post(open.origin, '/api/factory/discover', { jobId: status.jobId, budgetMs: 300 }), 200);
    }
    expect({ state: status.state, urlsFound: status.urlsFound }).toEqual({ state: 'done', urlsFound: truth.size });
    const statusUrl = `${open.origin}/api/factory/discover?jobId=${status.jobId}`;
    expect(await expectStatus(await fetch(statusUrl), 200)).toEqual(status);
    expectExactlyOnce(await readShards(open.origin, status), truth);
    await expectError(await fetch(`${statusUrl}&shard=${status.shardsWritten}`), 404, 'not_found');
  });

  it('stops a running job (200, state stopped)', async () => {
    const started = await expectStatus(await post(open.origin, '/api/factory/discover', { rootUrl: site.rootUrl, budgetMs: 50 }), 201);
    const stopped = await expectStatus(await post(open.origin, '/api/factory/discover', { jobId: started.jobId, action: 'stop' }), 200);
    expect(stopped.state).toBe('stopped');
    expect((await expectStatus(await fetch(`${open.origin}/api/factory/discover?jobId=${started.jobId}`), 200)).state).toBe('stopped');
  });

  it('refuses bad requests with the contract JSON: bad JSON, unknown fields, budgetMs, blocked and invalid targets', async () => {
    const discover = (body: unknown) => post(open.origin, '/api/factory/discover', body);
    await expectError(await discover('{"rootUrl":'), 400, 'bad_request');
    await expectError(await discover({ rootUrl: site.rootUrl, extra: true }), 400, 'bad_request');
    await expectError(await discover({ rootUrl: site.rootUrl, budgetMs: 0 }), 400, 'bad_request');
    await expectError(await discover({}), 400, 'bad_request');
    await expectError(await discover({ rootUrl: 'not a url' }), 400, 'invalid_url');
    await expectError(await discover({ rootUrl: 'http://10.1.2.3/' }), 422, 'blocked_ssrf');
    await expectError(await discover({ rootUrl: 'http://127.0.0.1:1/' }), 422, 'blocked_ssrf');
  });

  it('refuses a 100 KiB body (400)', async () => {
    const big = JSON.stringify({ rootUrl: site.rootUrl, padding: 'x'.repeat(100 * 1024) });
    await expectError(await post(open.origin, '/api/factory/discover', big), 400, 'bad_request');
  });

  it('refuses hostile job ids in the query string (400) without touching Redis; an unknown id is 404', async () => {
    const [keys, commands] = [await probe.keys(), await probe.dataCommands()];
    for (const query of ['*', 'job:*', 'AAAAAAAAAAAAAAAAAAAA%0D%0AFLUSHALL', '..%2F..%2F..%2Fetc%2Fpasswd', 'A'.repeat(10_000), '']) {
      await expectError(await fetch(`${open.origin}/api/factory/discover?jobId=${query}`), 400, 'bad_request');
      await expectError(await fetch(`${open.origin}/api/factory/discover?jobId=${query}&shard=0`), 400, 'bad_request');
    }
    await expectError(await post(open.origin, '/api/factory/discover', { jobId: 'job:*' }), 400, 'bad_request');
    expect(await probe.keys()).toEqual(keys);
    if (!redis.external) expect(await probe.dataCommands()).toBe(commands);
    await expectError(await fetch(`${open.origin}/api/factory/discover?jobId=${'B'.repeat(22)}`), 404, 'not_found');
    expect(await probe.keys()).toEqual(keys);
  });

  it('answers unknown routes, source paths and traversal with a JSON 404, and other methods with 405', async () => {
    for (const path of [
      '/api/factory/missing',
      '/api/factory/discover.ts',
      '/lib/service/env.ts',
      '/tsconfig.json',
      '/api/factory/__tests__/serve.http.test',
    ]) {
      await expectError(await fetch(`${open.origin}${path}`), 404, 'not_found');
    }
    const traversal = await rawGet(open.origin, '/api/factory/../../package.json');
    expect(traversal.status).toBe(404);
    expect(JSON.parse(traversal.body)).toMatchObject({ error: { kind: 'not_found' } });
    const put = await fetch(`${open.origin}/api/factory/discover`, { method: 'PUT', body: '{}' });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, POST, DELETE, OPTIONS');
    expect(await put.json()).toMatchObject({ error: { kind: 'method_not_allowed' } });
  });

  it('with FACTORY_API_TOKEN, asks for the bearer token on every route (401) and serves the right one', async () => {
    const body = { rootUrl: site.rootUrl, budgetMs: 100 };
    await expectError(await post(guarded.origin, '/api/factory/discover', body), 401, 'unauthorized');
    await expectError(await post(guarded.origin, '/api/factory/discover', body, { authorization: 'Bearer nope' }), 401, 'unauthorized');
    await expectError(await fetch(`${guarded.origin}/api/factory/estimate?rootUrl=${encodeURIComponent(site.rootUrl)}`), 401, 'unauthorized');
    await expectError(await fetch(`${guarded.origin}/api/factory/discover?jobId=${'C'.repeat(22)}`), 401, 'unauthorized');
    const headers = { authorization: `Bearer ${TOKEN}` };
    const status = await expectStatus(await post(guarded.origin, '/api/factory/discover', body, headers), 201);
    await expectStatus(await fetch(`${guarded.origin}/api/factory/discover?jobId=${status.jobId}`, { headers }), 200);
  });

  it('with VERCEL=1 and no token, refuses every request (401)', async () => {
    const refused = await expectError(await post(onVercel.origin, '/api/factory/discover', { rootUrl: site.rootUrl }), 401, 'unauthorized');
    expect(refused.error.message).toMatch(/FACTORY_API_TOKEN/);
    await expectError(await post(onVercel.origin, '/api/factory/estimate', { rootUrl: site.rootUrl }, { authorization: 'Bearer x' }), 401, 'unauthorized');
  });

  it('exits 0 on SIGTERM, its Redis connection closed', async () => {
    const started = Date.now();
    expect(await open.stop('SIGTERM')).toBe(0);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

async function readShards(origin: string, status: JobStatus): Promise<string[]> {
  const urls: string[] = [];
  for (let shard = 0; shard < status.shardsWritten; shard += 1) {
    const response = await fetch(`${origin}/api/factory/discover?jobId=${status.jobId}&shard=${shard}`);
    expect(response.status).toBe(200);
    urls.push(...ShardBodySchema.parse(await response.json()).urls);
  }
  return urls;
}
