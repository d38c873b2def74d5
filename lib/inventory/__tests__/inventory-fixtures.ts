import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { startLoopbackServer, type LoopbackServer } from '../../demo/loopback-server.js';
import type { InventoryDb } from '../db.js';
import { MIGRATIONS } from '../migrate.js';
import { openInventoryDb } from '../open-db.js';
import { advanceSync, startSync, type SyncRuntime } from '../sync-driver.js';
import type { Sync } from '../schemas.js';

/** The real Postgres of this machine (trust auth, db `test`). */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** Loopback sites need private targets allowed. */
export const LOOPBACK_NET = { allowPrivate: true, allowHosts: [], resolve: [] };

/** What a sitemap says of one page. */
export interface PageFacts {
  lastmod: string | null;
  changefreq: string | null;
  priority: number | null;
}

/** A site whose pages a test edits between syncs: robots.txt -> index -> urlsets of 1000 pages each (a full shard: two 500-row parts). */
export interface MutableSite extends LoopbackServer {
  rootUrl: string;
  pages: Map<string, PageFacts>;
  /** Waited before each urlset answers (a slow site, for stopping a sync mid-way). */
  delayMs: number;
  /** Paths of urlsets that answer 503 (a sitemap failing for a while). */
  failing: Set<string>;
}

function urlset(entries: Array<[string, PageFacts]>): string {
  const items = entries.map(([loc, facts]) => {
    const parts = [`<loc>${loc}</loc>`];
    if (facts.lastmod !== null) parts.push(`<lastmod>${facts.lastmod}</lastmod>`);
    if (facts.changefreq !== null) parts.push(`<changefreq>${facts.changefreq}</changefreq>`);
    if (facts.priority !== null) parts.push(`<priority>${facts.priority}</priority>`);
    return `<url>${parts.join('')}</url>`;
  });
  return `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${items.join('')}</urlset>`;
}

/** Starts a mutable site with `count` pages under /blog/, /docs/ and /fr/shop/, `perSitemap` pages a urlset. */
export async function startMutableSite(count: number, perSitemap = 1_000): Promise<MutableSite> {
  const PER_SITEMAP = perSitemap;
  const delay = { ms: 0 };
  const pages = new Map<string, PageFacts>();
  const failing = new Set<string>();
  const chunks = () => {
    const sorted = [...pages.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
    return Array.from({ length: Math.ceil(sorted.length / PER_SITEMAP) }, (_, i) => sorted.slice(i * PER_SITEMAP, (i + 1) * PER_SITEMAP));
  };
  const server = await startLoopbackServer((request) => {
    const path = request.url ?? '/';
    if (path === '/robots.txt') return { body: `Sitemap: ${server.origin}/sitemap.xml\n` };
    if (path === '/sitemap.xml') {
      const children = chunks().map((_, i) => `<sitemap><loc>${server.origin}/sm-${i}.xml</loc></sitemap>`);
      return {
        headers: { 'content-type': 'application/xml' },
        body: `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${children.join('')}</sitemapindex>`,
      };
    }
    if (failing.has(path)) return { status: 503, body: 'unavailable' };
    const match = /^\/sm-(\d+)\.xml$/.exec(path);
    const chunk = match ? chunks()[Number(match[1])] : undefined;
    return chunk ? { headers: { 'content-type': 'application/xml' }, body: urlset(chunk), delayMs: delay.ms } : null;
  });
  // PGlite runs in this thread and can hold it for seconds: a short keep-alive would close sockets the client is reusing.
  server.server.keepAliveTimeout = 120_000;
  const sections = ['/blog/', '/docs/', '/fr/shop/'];
  for (let i = 0; i < count; i += 1) {
    pages.set(`${server.origin}${sections[i % 3]}page-${String(i).padStart(5, '0')}`, { lastmod: '2026-01-01', changefreq: 'weekly', priority: 0.5 });
  }
  return Object.defineProperties(Object.assign(server, { rootUrl: `${server.origin}/`, pages, failing }), {
    delayMs: { get: () => delay.ms, set: (ms: number) => (delay.ms = ms), enumerable: true },
  }) as MutableSite;
}

/** A database under test and how to get rid of it. */
export interface TestDb {
  db: InventoryDb;
  /** Opens the same database again (a second worker, a resumed process); PGlite: only after closing the first. */
  reopen(): Promise<InventoryDb>;
  /** Environment a child process needs to open the same database. */
  env: Record<string, string>;
  drop(): Promise<void>;
}

/** A fresh Postgres schema for this run, dropped afterwards. */
export async function openPostgresTestDb(): Promise<TestDb> {
  const schema = `inv_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const open = () => openInventoryDb({ databaseUrl: TEST_DATABASE_URL, schema });
  const db = await open();
  return {
    db,
    reopen: open,
    env: { DATABASE_URL: TEST_DATABASE_URL, INVENTORY_SCHEMA: schema },
    drop: async () => {
      const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client.end();
    },
  };
}

/** A PGlite database in a fresh temporary directory, removed afterwards. */
export async function openPgliteTestDb(): Promise<TestDb> {
  const dir = await mkdtemp(join(tmpdir(), 'inventory-pglite-'));
  const open = () => openInventoryDb({ dataDir: dir });
  return { db: await open(), reopen: open, env: { INVENTORY_DB_DIR: dir }, drop: () => rm(dir, { recursive: true, force: true }) };
}

/** A fresh PGlite directory runs initdb in WebAssembly: about 40 s on this shared machine under load. */
export const PGLITE_START_MS = 180_000;

/**
 * A database opened by `open` before the enclosing describe block's tests and closed and dropped after them. The
 * handle is usable from the tests on (and `db` may be replaced, by a test that reopens it).
 */
export function useTestDb(open: () => Promise<TestDb>): TestDb {
  let opened: TestDb | undefined;
  const current = (): TestDb => {
    if (opened === undefined) throw new Error('the test database is not open yet: use it from a test or a later hook');
    return opened;
  };
  beforeAll(async () => {
    opened = await open();
  }, PGLITE_START_MS);
  afterAll(async () => {
    await opened?.db.close();
    await opened?.drop();
  });
  return {
    get db() {
      return current().db;
    },
    set db(db: InventoryDb) {
      current().db = db;
    },
    reopen: () => current().reopen(),
    get env() {
      return current().env;
    },
    drop: () => current().drop(),
  };
}

/**
 * A second Postgres session on `test`'s schema for the enclosing describe block (one that holds a lock or an
 * uncommitted row while the code under test runs), connected before its tests and ended after them.
 */
export function useSecondSession(test: TestDb): pg.Client {
  const session = new pg.Client({ connectionString: TEST_DATABASE_URL });
  beforeAll(async () => {
    await session.connect();
    await session.query(`SET search_path = ${test.env.INVENTORY_SCHEMA ?? 'public'}`);
  });
  afterAll(async () => {
    await session.end();
  });
  return session;
}

/** A Postgres schema of a test's own, the connection string that selects it, and a session to set up and check it. */
export interface TestSchema {
  schema: string;
  /** The schema rides in the connection string (`options=-c search_path=...`), as any deployment could set it. */
  databaseUrl: string;
  /** A session on the database (not the schema: name the schema, or set search_path, to read its tables). */
  admin: pg.Client;
}

function testSchemaNamed(prefix: string): TestSchema {
  const schema = `${prefix}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const databaseUrl = `${TEST_DATABASE_URL}?options=${encodeURIComponent(`-c search_path=${schema}`)}`;
  return { schema, databaseUrl, admin: new pg.Client({ connectionString: TEST_DATABASE_URL }) };
}

/** Makes a schema of its own now; `drop()` removes it and ends the session. */
export async function createTestSchema(prefix: string): Promise<TestSchema & { drop(): Promise<void> }> {
  const made = testSchemaNamed(prefix);
  await made.admin.connect();
  await made.admin.query(`CREATE SCHEMA ${made.schema}`);
  const drop = async () => {
    await made.admin.query(`DROP SCHEMA IF EXISTS ${made.schema} CASCADE`);
    await made.admin.end();
  };
  return { ...made, drop };
}

/**
 * A schema of its own for the enclosing describe block, made before its tests and dropped after them (after the
 * block's own afterAll hooks, registered later, have stopped what used it). `create: false` leaves making it to the
 * code under test (migrations from nothing).
 */
export function useTestSchema(prefix: string, { create = true } = {}): TestSchema {
  const made = testSchemaNamed(prefix);
  beforeAll(async () => {
    await made.admin.connect();
    if (create) await made.admin.query(`CREATE SCHEMA ${made.schema}`);
  });
  afterAll(async () => {
    await made.admin.query(`DROP SCHEMA IF EXISTS ${made.schema} CASCADE`);
    await made.admin.end();
  });
  return made;
}

/** Brings a test schema to the inventory as it was before migration `version` (an inventory written by an older release). */
export async function applyMigrationsBefore({ schema, admin }: TestSchema, version: number): Promise<void> {
  await admin.query(`SET search_path = ${schema}`);
  await admin.query('CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())');
  for (const migration of MIGRATIONS.filter((m) => m.version < version)) {
    await admin.query(migration.sql);
    await admin.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [migration.version, migration.name]);
  }
}

/** A test schema the built bin's commands use through DATABASE_URL, with the environment of a command run on it. */
export interface CliSchema extends TestSchema {
  /** The environment of a command run on the schema (no Redis: the inventory alone). */
  env: { DATABASE_URL: string; REDIS_URL: string };
}

/** A schema of its own for the enclosing describe block's CLI runs, made before its tests and dropped after them. */
export function useCliSchema(prefix: string): CliSchema {
  const made = useTestSchema(prefix);
  return { ...made, env: { DATABASE_URL: made.databaseUrl, REDIS_URL: '' } };
}

/** Both databases the shared suite runs against. */
export const DATABASES = [
  { name: 'postgres', open: openPostgresTestDb },
  { name: 'pglite', open: openPgliteTestDb },
] as const;

/** Advances a sync until it leaves `running` (at most `maxSteps` calls). */
export async function syncToEnd(runtime: SyncRuntime, syncId: string, maxSteps = 500): Promise<Sync> {
  for (let step = 0; step < maxSteps; step += 1) {
    const sync = await advanceSync(runtime, syncId, { budgetMs: 2_000 });
    if (sync.state !== 'running') return sync;
  }
  throw new Error(`sync ${syncId} still running after ${maxSteps} steps`);
}

/** Starts a sync of a site and runs it to its end. */
export async function syncSite(runtime: SyncRuntime, siteId: string): Promise<Sync> {
  return syncToEnd(runtime, (await startSync(runtime, siteId)).syncId);
}

/** The site's URL rows without timestamps, in URL order: what two equivalent syncs must agree on. */
export async function urlFacts(db: InventoryDb, siteId: string): Promise<Array<Record<string, unknown>>> {
  return db.query(
    `SELECT url, sitemap_lastmod AS lastmod, changefreq, priority, locale, path_prefix AS "pathPrefix", removed_at IS NOT NULL AS removed
     FROM urls WHERE site_id = $1 ORDER BY url`,
    [siteId],
  );
}

/** The site's history rows without ids and timestamps, in URL then event order. */
export async function historyFacts(db: InventoryDb, siteId: string): Promise<Array<Record<string, unknown>>> {
  return db.query(
    `SELECT url, sync_id AS "syncId", event, old_value AS "oldValue", new_value AS "newValue"
     FROM url_history WHERE site_id = $1 ORDER BY url, event, id`,
    [siteId],
  );
}
