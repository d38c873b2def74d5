// GET /api/factory/health over the local server, against a private redis-server and a Postgres schema of its own:
// healthy with its counts (running and due syncs, the queue's engine and depth), refused without the token, and 503
// naming the part that is down (the database at a closed port, then the store after its server was stopped).
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readFactoryConfig } from '../../../lib/config/factory-config.js';
import { inProcessDispatcher } from '../../../lib/dispatch/in-process.js';
import { HealthBodySchema } from '../../../lib/service/health.js';
import { startLocalApiServer, type LocalApiServer } from '../../../lib/service/local-server.js';
import { createService, type ServiceContext } from '../../../lib/service/service.js';
import { useTestSchema } from '../../../lib/inventory/__tests__/inventory-fixtures.js';
import { freePort, startTestRedis, type TestRedis } from '../../../test/helpers/redis-server.js';

const API_DIR = fileURLToPath(new URL('../../', import.meta.url));
const TOKEN = 'health-token';
const RUNNING_FOR_MS = 90_000;
const DUE_FOR_MS = 300_000;

describe('GET /api/factory/health', () => {
  const { schema, databaseUrl, admin } = useTestSchema('health');
  let redis: TestRedis;
  let server: LocalApiServer;
  let service: ServiceContext;
  // The deployment's service from now on, the test's database unless another is named.
  const deploy = async (databaseUrlNow = databaseUrl) => {
    await service?.release();
    service = createService(readFactoryConfig({ DATABASE_URL: databaseUrlNow, REDIS_URL: redis.url, FACTORY_API_TOKEN: TOKEN }));
  };
  const health = (token: string | null = TOKEN) =>
    fetch(`${server.origin}/api/factory/health`, { headers: token === null ? {} : { authorization: `Bearer ${token}` } });

  beforeAll(async () => {
    redis = await startTestRedis();
    await deploy();
    server = await startLocalApiServer(API_DIR, { host: '127.0.0.1', port: 0 }, () => service);
  });
  afterEach(async () => deploy());
  afterAll(async () => {
    await server?.close();
    await service?.release();
    await redis?.stop();
  });

  it("answers 200 with both parts ok, the running and due syncs, the oldest ones' ages, the queue and the site count", async () => {
    const empty = HealthBodySchema.parse(await (await health()).json());
    expect(empty).toEqual({
      ok: true,
      store: { kind: 'redis', ok: true },
      database: { kind: 'postgres', ok: true },
      queue: { engine: 'none', depth: null },
      syncs: { running: 0, oldestRunningAgeMs: null, due: 0, oldestDueAgeMs: null },
      sites: 0,
    });

    // The first call migrated the schema: site a syncing for 90 s (and due: a running site is not waiting), b done and
    // due for 5 min, c due in an hour, d due but its schedule off.
    await admin.query(
      `INSERT INTO ${schema}.sites (site_id, root_url, schedule_ms, next_sync_at) VALUES
         ('a', 'https://a.example/', 3600000, now() - interval '1 day'),
         ('b', 'https://b.example/', 3600000, now() - $1 * interval '1 millisecond'),
         ('c', 'https://c.example/', 3600000, now() + interval '1 hour'),
         ('d', 'https://d.example/', NULL, now() - interval '1 day')`,
      [DUE_FOR_MS],
    );
    await admin.query(
      `INSERT INTO ${schema}.syncs (sync_id, site_id, job_id, state, started_at) VALUES
         ('AAAAAAAAAAAAAAAAAAAAAA', 'a', 'job-a', 'running', now() - $1 * interval '1 millisecond'),
         ('BBBBBBBBBBBBBBBBBBBBBB', 'b', 'job-b', 'done', now() - interval '1 day')`,
      [RUNNING_FOR_MS],
    );
    const response = await health();
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const body = HealthBodySchema.parse(await response.json());
    expect(body).toMatchObject({ ok: true, syncs: { running: 1, due: 1 }, sites: 4 });
    expect(body.syncs?.oldestRunningAgeMs).toBeGreaterThanOrEqual(RUNNING_FOR_MS);
    expect(body.syncs?.oldestRunningAgeMs).toBeLessThan(RUNNING_FOR_MS + 30_000);
    expect(body.syncs?.oldestDueAgeMs).toBeGreaterThanOrEqual(DUE_FOR_MS);
    expect(body.syncs?.oldestDueAgeMs).toBeLessThan(DUE_FOR_MS + 30_000);
  });

  it("reports the process's slice engine and its depth", async () => {
    const engine = service.slices.use(inProcessDispatcher());
    try {
      expect(HealthBodySchema.parse(await (await health()).json()).queue).toEqual({ engine: 'in-process', depth: 0 });
    } finally {
      await engine.stop();
    }
    expect(HealthBodySchema.parse(await (await health()).json()).queue).toEqual({ engine: 'none', depth: null });
  });

  it('is refused without the token, as every route', async () => {
    const response = await health(null);
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error: { kind: 'unauthorized' } });
  });

  it('answers 503 store_unavailable naming the database, with Retry-After, when Postgres cannot be reached', async () => {
    await deploy(`postgres://postgres@127.0.0.1:${await freePort()}/test`);
    const started = Date.now();
    const response = await health();
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('2');
    const body = HealthBodySchema.parse(await response.json());
    expect(body).toMatchObject({ ok: false, store: { kind: 'redis', ok: true }, database: { kind: 'postgres', ok: false }, syncs: null, sites: null });
    expect(body.error).toEqual({ kind: 'store_unavailable', message: 'database (postgres) unreachable' });
    expect(body.database.error).toMatch(/ECONNREFUSED/);
  });

  // Last: the test's own redis-server is stopped for good.
  it('answers 503 naming the store once its Redis is gone, the database still read', async () => {
    expect((await health()).status).toBe(200); // connected first: the outage hits a live connection
    await redis.stop();
    const response = await health();
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('2');
    const body = HealthBodySchema.parse(await response.json());
    expect(body).toMatchObject({ ok: false, store: { kind: 'redis', ok: false }, database: { kind: 'postgres', ok: true }, sites: 4 });
    expect(body.error?.message).toBe('store (redis) unreachable');
  });
});
