// Every way the handlers refuse a request, called directly with web Requests: status, error kind, JSON body,
// and (for anything hostile) proof from Redis itself that nothing was read or written.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startDemoSite, type DemoSite } from '../../../lib/demo/demo-site.js';
import { DEFAULT_SLICE_BUDGET_MS } from '../../../lib/service/api-limits.js';
import { MAX_BODY_BYTES } from '../../../lib/service/request.js';
import { hasRedisServer, startTestRedis, type TestRedis } from '../../../test/helpers/redis-server.js';
import { expectError, expectStatus, getRequest, openRedisProbe, postRequest, type RedisProbe } from '../../../lib/service/__tests__/http-fixtures.js';
import { testDeployment, type TestDeployment } from '../../../lib/service/__tests__/test-deployment.js';
import * as discoverRoute from '../discover.js';
import * as estimateRoute from '../estimate.js';

const DISCOVER = '/api/factory/discover';
const ESTIMATE = '/api/factory/estimate';
const UNKNOWN_ID = 'Zz0123456789_-abcdefgh';

// Ids an attacker might try to turn into a key pattern, a protocol injection, a path, or a memory sink.
const HOSTILE_IDS: Array<[string, unknown]> = [
  ['a glob', '*'],
  ['a key pattern', 'job:*'],
  ['a CRLF injection', 'AAAAAAAAAAAAAAAAAAAA\r\nFLUSHALL\r\n'],
  ['a path', '../../../../etc/passwd'],
  ['a 22-char path', '../../../../../etc/pas'],
  ['10,000 characters', 'A'.repeat(10_000)],
  ['an empty string', ''],
  ['a number', 1234567890],
  ['an object', { $ne: null }],
];

describe('handler refusals', () => {
  let redis: TestRedis;
  let site: DemoSite;
  let probe: RedisProbe;
  let deployment: TestDeployment;
  let discover: ReturnType<typeof discoverRoute.routes>;
  let estimate: ReturnType<typeof estimateRoute.routes>;

  beforeAll(async () => {
    [redis, site] = await Promise.all([startTestRedis(), startDemoSite({ scale: 0.01 })]);
    probe = await openRedisProbe(redis.url);
    deployment = testDeployment({ REDIS_URL: redis.url, FACTORY_ALLOW_HOSTS: `127.0.0.1:${site.port}` });
    discover = discoverRoute.routes(deployment.source);
    estimate = estimateRoute.routes(deployment.source);
  });
  afterEach(async () => deployment.configure(null));
  afterAll(async () => {
    await deployment?.release();
    await probe?.close();
    await Promise.all([redis?.stop(), site?.close()]);
  });

  /** Runs `act` and asserts the store saw no key change (and, with `untouched`, not a single data command). */
  async function expectStoreUnchanged(act: () => Promise<void>, untouched: boolean): Promise<void> {
    const [keys, commands] = [await probe.keys(), await probe.dataCommands()];
    await act();
    expect(await probe.keys()).toEqual(keys);
    if (untouched && !redis.external) expect(await probe.dataCommands()).toBe(commands);
  }

  describe('bad requests (400 bad_request)', () => {
    const cases: Array<[string, string | object]> = [
      ['broken JSON', '{"rootUrl": "http://example.com/"'],
      ['a JSON array', '[1, 2]'],
      ['a JSON string', '"http://example.com/"'],
      ['JSON null', 'null'],
      ['an empty body (rootUrl missing)', ''],
      ['an empty object (rootUrl missing)', {}],
      ['an unknown field', { rootUrl: 'http://example.com/', priority: 'high' }],
      ['a network policy from the caller', { rootUrl: 'http://example.com/', options: { net: { allowPrivate: true } } }],
      ['an unknown option', { rootUrl: 'http://example.com/', options: { followLinks: true } }],
      ['budgetMs 0', { rootUrl: 'http://example.com/', budgetMs: 0 }],
      ['budgetMs negative', { rootUrl: 'http://example.com/', budgetMs: -1 }],
      ['budgetMs fractional', { rootUrl: 'http://example.com/', budgetMs: 1.5 }],
      ['budgetMs past the slice budget', { rootUrl: 'http://example.com/', budgetMs: DEFAULT_SLICE_BUDGET_MS + 1 }],
      ['budgetMs as a string', { rootUrl: 'http://example.com/', budgetMs: '100' }],
      ['rootUrl not a string', { rootUrl: 42 }],
      ['both rootUrl and jobId', { rootUrl: 'http://example.com/', jobId: UNKNOWN_ID }],
      ['an unknown action', { jobId: UNKNOWN_ID, action: 'delete' }],
      ['a continue with budgetMs out of range', { jobId: UNKNOWN_ID, budgetMs: DEFAULT_SLICE_BUDGET_MS + 1 }],
    ];
    it.each(cases)('POST discover with %s', async (_name, body) => {
      await expectStoreUnchanged(async () => void (await expectError(await discover.POST(postRequest(DISCOVER, body)), 400, 'bad_request')), true);
    });

    it.each([
      ['broken JSON', '{"rootUrl":'],
      ['an unknown field', { rootUrl: 'http://example.com/', depth: 3 }],
      ['rootUrl missing', {}],
    ])('POST estimate with %s', async (_name, body) => {
      await expectError(await estimate.POST(postRequest(ESTIMATE, body)), 400, 'bad_request');
    });

    it.each([
      ['a shard without its jobId', { shard: 0 }],
      ['a listing cursor beside a jobId', { jobId: UNKNOWN_ID, cursor: '0' }],
      ['an unknown parameter', { jobId: UNKNOWN_ID, page: '1' }],
      ['a negative shard', { jobId: UNKNOWN_ID, shard: -1 }],
      ['a shard that is not a number', { jobId: UNKNOWN_ID, shard: 'first' }],
      ['a fractional shard', { jobId: UNKNOWN_ID, shard: 1.5 }],
    ])('GET discover with %s', async (_name, query) => {
      await expectStoreUnchanged(async () => void (await expectError(await discover.GET(getRequest(DISCOVER, query)), 400, 'bad_request')), true);
    });
  });

  describe('body size limit', () => {
    const big = JSON.stringify({ rootUrl: 'http://example.com/', padding: 'x'.repeat(100 * 1024) });

    it('refuses a 100 KiB body that declares its length (400), without parsing it', async () => {
      expect(new TextEncoder().encode(big).byteLength).toBeGreaterThan(MAX_BODY_BYTES);
      const body = await expectError(await discover.POST(postRequest(DISCOVER, big)), 400, 'bad_request');
      expect(body.error.message).toMatch(/larger than/);
    });

    it('refuses a 100 KiB streamed body with no length (400) once the limit is crossed', async () => {
      const chunk = new TextEncoder().encode(' '.repeat(16 * 1024));
      let sent = 0;
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent >= 100 * 1024) return controller.close();
          sent += chunk.byteLength;
          controller.enqueue(chunk);
        },
      });
      const request = new Request(`http://localhost${DISCOVER}`, { method: 'POST', body: stream, duplex: 'half' } as RequestInit);
      expect(request.headers.get('content-length')).toBeNull();
      await expectError(await discover.POST(request), 400, 'bad_request');
      expect(sent).toBeLessThan(100 * 1024);
    });

    it('refuses an oversized estimate body too', async () => {
      await expectError(await estimate.POST(postRequest(ESTIMATE, big)), 400, 'bad_request');
    });
  });

  describe('targets (400 invalid_url, 422 blocked_ssrf), refused before any job exists', () => {
    it.each(['not a url', 'ftp://example.com/', 'javascript:alert(1)', '//example.com/'])('%s is invalid_url', async (rootUrl) => {
      await expectStoreUnchanged(async () => {
        const body = await expectError(await discover.POST(postRequest(DISCOVER, { rootUrl })), 400, 'invalid_url');
        expect(body.error.url).toBe(rootUrl);
      }, false);
      await expectError(await estimate.POST(postRequest(ESTIMATE, { rootUrl })), 400, 'invalid_url');
    });

    it.each(['http://10.0.0.1/', 'http://169.254.169.254/latest/meta-data/', 'http://[::1]/', 'http://127.0.0.1:1/'])(
      '%s (private, not allowed) is blocked_ssrf',
      async (rootUrl) => {
        await expectStoreUnchanged(async () => void (await expectError(await discover.POST(postRequest(DISCOVER, { rootUrl })), 422, 'blocked_ssrf')), false);
        await expectError(await estimate.POST(postRequest(ESTIMATE, { rootUrl })), 422, 'blocked_ssrf');
        await expectError(await estimate.GET(getRequest(ESTIMATE, { rootUrl })), 422, 'blocked_ssrf');
      },
    );

    // A name is resolved (and checked) when it is fetched, not when the job is created, so DNS rebinding cannot slip
    // past: the job exists, fails at once with blocked_ssrf, and fetched nothing. The estimate fetches at once: 422.
    it('a host name that resolves to a private address is refused at once: 422 for discover and estimate', async () => {
      await expectError(await discover.POST(postRequest(DISCOVER, { rootUrl: 'http://localhost/', budgetMs: 2_000 })), 422, 'blocked_ssrf');
      await expectError(await discover.POST(postRequest(DISCOVER, { rootUrl: 'http://localhost/sitemap.xml' })), 422, 'blocked_ssrf');
      await expectError(await estimate.POST(postRequest(ESTIMATE, { rootUrl: 'http://localhost/' })), 422, 'blocked_ssrf');
    });

    it('estimates the allowed loopback site (200), by POST and by GET', async () => {
      for (const response of [
        await estimate.POST(postRequest(ESTIMATE, { rootUrl: site.rootUrl })),
        await estimate.GET(getRequest(ESTIMATE, { rootUrl: site.rootUrl })),
      ]) {
        expect(response.status).toBe(200);
        expect(await response.json()).toMatchObject({ rootUrl: site.rootUrl });
      }
    });
  });

  describe('job ids', () => {
    it.each(HOSTILE_IDS)('%s as jobId is refused (400) and touches nothing: continue, stop, status, shard', async (_name, jobId) => {
      await expectStoreUnchanged(async () => {
        await expectError(await discover.POST(postRequest(DISCOVER, { jobId })), 400, 'bad_request');
        await expectError(await discover.POST(postRequest(DISCOVER, { jobId, action: 'stop' })), 400, 'bad_request');
        if (typeof jobId !== 'string') return;
        await expectError(await discover.GET(getRequest(DISCOVER, { jobId })), 400, 'bad_request');
        await expectError(await discover.GET(getRequest(DISCOVER, { jobId, shard: 0 })), 400, 'bad_request');
      }, true);
    });

    it('a well-formed id no job has is 404 not_found for continue, stop, status and shard, and creates nothing', async () => {
      await expectStoreUnchanged(async () => {
        await expectError(await discover.POST(postRequest(DISCOVER, { jobId: UNKNOWN_ID })), 404, 'not_found');
        await expectError(await discover.POST(postRequest(DISCOVER, { jobId: UNKNOWN_ID, action: 'stop' })), 404, 'not_found');
        await expectError(await discover.GET(getRequest(DISCOVER, { jobId: UNKNOWN_ID })), 404, 'not_found');
        await expectError(await discover.GET(getRequest(DISCOVER, { jobId: UNKNOWN_ID, shard: 0 })), 404, 'not_found');
      }, false);
    });
  });

  describe('auth', () => {
    const TOKEN = 'test-token-0123456789';
    const start = (headers: Record<string, string>) => discover.POST(postRequest(DISCOVER, { rootUrl: site.rootUrl, budgetMs: 100 }, headers));

    it.each([
      ['no Authorization header', {}],
      ['a wrong bearer token', { authorization: 'Bearer wrong-token' }],
      ['the token with a suffix', { authorization: `Bearer ${TOKEN}x` }],
      ['a token prefix', { authorization: `Bearer ${TOKEN.slice(0, -1)}` }],
      ['the token without the Bearer scheme', { authorization: TOKEN }],
      ['Basic auth', { authorization: `Basic ${Buffer.from(`user:${TOKEN}`).toString('base64')}` }],
    ])('with FACTORY_API_TOKEN set, %s is 401 on every route and touches nothing', async (_name, headers) => {
      await deployment.configure({ FACTORY_API_TOKEN: TOKEN });
      await expectStoreUnchanged(async () => {
        await expectError(await start(headers), 401, 'unauthorized');
        await expectError(await discover.GET(getRequest(DISCOVER, { jobId: UNKNOWN_ID }, headers)), 401, 'unauthorized');
        await expectError(await estimate.POST(postRequest(ESTIMATE, { rootUrl: site.rootUrl }, headers)), 401, 'unauthorized');
        await expectError(await estimate.GET(getRequest(ESTIMATE, { rootUrl: site.rootUrl }, headers)), 401, 'unauthorized');
      }, true);
    });

    it('with FACTORY_API_TOKEN set, the right bearer token passes', async () => {
      await deployment.configure({ FACTORY_API_TOKEN: TOKEN });
      const headers = { authorization: `Bearer ${TOKEN}` };
      const status = await expectStatus(await start(headers), 201);
      await expectStatus(await discover.GET(getRequest(DISCOVER, { jobId: status.jobId }, headers)), 200);
      expect((await estimate.GET(getRequest(ESTIMATE, { rootUrl: site.rootUrl }, headers))).status).toBe(200);
    });

    it('on Vercel (VERCEL=1) without a token, the service refuses every request (401)', async () => {
      await deployment.configure({ VERCEL: '1' });
      await expectStoreUnchanged(async () => {
        const body = await expectError(await start({}), 401, 'unauthorized');
        expect(body.error.message).toMatch(/FACTORY_API_TOKEN/);
        await expectError(await start({ authorization: 'Bearer anything' }), 401, 'unauthorized');
        await expectError(await estimate.GET(getRequest(ESTIMATE, { rootUrl: site.rootUrl })), 401, 'unauthorized');
      }, true);
    });

    it('on Vercel with a token, the right bearer token passes', async () => {
      await deployment.configure({ VERCEL: '1', FACTORY_API_TOKEN: TOKEN });
      await expectStatus(await start({ authorization: `Bearer ${TOKEN}` }), 201);
    });
  });

  it.each([
    ['REDIS_URL', 'not a url'],
    ['FACTORY_RESOLVE', 'example.com'],
    ['FACTORY_JOB_TTL_MS', 'a week'],
    ['FACTORY_CORS_ORIGINS', 'cors-origin-without-scheme.test'],
    ['UPSTASH_REDIS_REST_URL', 'ftp://secret@upstash.example'],
  ])("a malformed %s is the operator's fault: 500 config naming the variable, never its value", async (name, value) => {
    await deployment.configure({ [name]: value });
    const response = await discover.GET(getRequest(DISCOVER, { jobId: UNKNOWN_ID }));
    const body = await expectError(response.clone(), 500, 'config');
    expect(body.error.message).toContain(name);
    expect(await response.text()).not.toContain(value);
  });

  it.skipIf(!hasRedisServer())('leaves the private Redis holding only the keys of the jobs it started', async () => {
    const keys = await probe.keys();
    expect(
      keys.every((key) => /^cf:job:\{[A-Za-z0-9_-]{22}\}:/.test(key)),
      keys.join('\n'),
    ).toBe(true);
  });
});
