// A fleet of `crawler-factory worker` processes (the built bin) over one Postgres inventory and one Redis, syncing
// loopback sites that drip their sitemaps slowly: shared by the fleet test (kills and restarts) and bench/fleet.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { z } from 'zod';
import type { InventoryDb } from '../../../inventory/db.js';
import { createSite } from '../../../inventory/sites.js';
import { LOOPBACK_NET, openPostgresTestDb, TEST_DATABASE_URL, type TestDb } from '../../../inventory/__tests__/inventory-fixtures.js';
import { assertBuildCurrent, BUILT_BIN } from '../../../service/__tests__/serve-process.js';
import { startTestRedis, type TestRedis } from '../../../../test/helpers/redis-server.js';

/** The shape of each site: child sitemaps of an index, URLs per child, and how slowly each child is written. */
export interface DripShape {
  children: number;
  urlsPerChild: number;
  chunks: number;
  chunkDelayMs: number;
}

/** Sites of the fleet: each on its own port (its own host), and how many URLs each publishes. */
export interface DripSites {
  rootUrls: string[];
  urlsPerSite: number;
  close(): Promise<void>;
}

function urlset(origin: string, child: number, count: number): string[] {
  const urls = Array.from({ length: count }, (_, i) => `<url><loc>${origin}/c${child}/page-${i}</loc><lastmod>2026-01-01</lastmod></url>`);
  return ['<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">', ...urls, '</urlset>'];
}

// One site: robots.txt -> index -> children, each child's body written in `chunks` parts `chunkDelayMs` apart.
async function startDripSite(shape: DripShape): Promise<Server> {
  const server = createServer((request, response) => {
    const origin = `http://${request.headers.host ?? ''}`;
    if (request.url === '/robots.txt') return void response.end(`Sitemap: ${origin}/sitemap.xml\n`);
    if (request.url === '/sitemap.xml') {
      const children = Array.from({ length: shape.children }, (_, i) => `<sitemap><loc>${origin}/sm-${i}.xml</loc></sitemap>`);
      response.setHeader('content-type', 'application/xml');
      return void response.end(`<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${children.join('')}</sitemapindex>`);
    }
    const match = /^\/sm-(\d+)\.xml$/.exec(request.url ?? '');
    if (!match || Number(match[1]) >= shape.children) return void response.writeHead(404).end();
    const lines = urlset(origin, Number(match[1]), shape.urlsPerChild);
    response.setHeader('content-type', 'application/xml');
    void (async () => {
      const per = Math.ceil(lines.length / shape.chunks);
      for (let at = 0; at < lines.length && !response.destroyed; at += per) {
        response.write(lines.slice(at, at + per).join(''));
        await sleep(shape.chunkDelayMs);
      }
      response.end();
    })();
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return server;
}

/** Starts `count` dripping sites. */
export async function startDripSites(count: number, shape: DripShape): Promise<DripSites> {
  const servers: Server[] = [];
  for (let i = 0; i < count; i += 1) servers.push(await startDripSite(shape));
  return {
    rootUrls: servers.map((server) => {
      const address = server.address();
      return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/`;
    }),
    urlsPerSite: shape.children * shape.urlsPerChild,
    close: async () => {
      for (const server of servers) server.closeAllConnections();
      await Promise.all(servers.map((server) => new Promise<void>((done) => server.close(() => done()))));
    },
  };
}

/** One run's shared state: an inventory schema, a Redis and a pg-boss schema of its own, and the environment of its workers. */
export interface FleetState {
  test: TestDb;
  redis: TestRedis;
  env: Record<string, string>;
  close(): Promise<void>;
}

/** A fresh inventory whose every site has a schedule that is due now, and a fresh Redis: what a fleet starts from. */
export async function prepareFleetState(rootUrls: string[], workerEnv: Record<string, string> = {}): Promise<FleetState> {
  const test = await openPostgresTestDb();
  const redis = await startTestRedis();
  const bossSchema = `pgboss_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  for (const [i, rootUrl] of rootUrls.entries())
    await createSite(test.db, { rootUrl, siteId: `site-${String(i).padStart(4, '0')}`, schedule: '24h' }, LOOPBACK_NET);
  await test.db.query(`UPDATE sites SET next_sync_at = now() - interval '1 second'`);
  const env = {
    DATABASE_URL: `${TEST_DATABASE_URL}?options=${encodeURIComponent(`-c search_path=${test.env.INVENTORY_SCHEMA}`)}`,
    REDIS_URL: redis.url,
    FACTORY_PGBOSS_SCHEMA: bossSchema,
    ...workerEnv,
  };
  return {
    test,
    redis,
    env,
    close: async () => {
      await test.db.close();
      await test.drop();
      await redis.stop();
      const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await admin.connect();
      await admin.query(`DROP SCHEMA IF EXISTS ${bossSchema} CASCADE`);
      await admin.end();
    },
  };
}

/** A running `worker` process: its output so far, and how to kill it. */
export interface WorkerProcess {
  child: ChildProcess;
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** Starts `crawler-factory worker` (the built bin) and waits until it says it works. */
export async function startWorker(env: Record<string, string>, concurrency: number): Promise<WorkerProcess> {
  assertBuildCurrent();
  const childEnv: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'warn', ...env };
  for (const name of ['FACTORY_API_TOKEN', 'VERCEL', 'UPSTASH_REDIS_REST_URL', 'UPSTASH_REDIS_REST_TOKEN']) delete childEnv[name];
  const args = [BUILT_BIN, 'worker', '--concurrency', String(concurrency), '--allow-private'];
  const child = spawn(process.execPath, args, { env: childEnv, stdio: ['ignore', 'ignore', 'pipe'] });
  let text = '';
  child.stderr?.on('data', (chunk: Buffer) => (text += chunk.toString()));
  await new Promise<void>((ready, fail) => {
    const timer = setTimeout(() => fail(new Error(`worker did not start in 60 s: ${text}`)), 60_000);
    child.stderr?.on('data', () => text.includes(`worker ${child.pid}:`) && (clearTimeout(timer), ready()));
    child.once('exit', (code) => (clearTimeout(timer), fail(new Error(`worker exited (${code}): ${text}`))));
  });
  return {
    child,
    output: () => text,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill(signal);
      await exited;
    },
  };
}

/** How many syncs are in each state (state only: counters are read through the inventory's functions). */
export async function syncStates(db: InventoryDb): Promise<Record<string, number>> {
  const rows = await db.query(`SELECT state, count(*)::int AS n FROM syncs GROUP BY state`);
  return Object.fromEntries(rows.map((row) => [z.string().parse(row.state), z.number().parse(row.n)]));
}

/** Waits until `sites` syncs exist and none runs; returns the states then. */
export async function untilAllEnded(db: InventoryDb, sites: number, timeoutMs: number): Promise<Record<string, number>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const states = await syncStates(db);
    const total = Object.values(states).reduce((sum, n) => sum + n, 0);
    if (total >= sites && (states.running ?? 0) === 0) return states;
    if (Date.now() > deadline) throw new Error(`syncs still running after ${timeoutMs} ms: ${JSON.stringify(states)}`);
    await sleep(250);
  }
}
