// One sites API under test: a Postgres schema of its own, a loopback site, the local server, and authed calls.
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { TEST_DATABASE_URL, startMutableSite, type MutableSite } from '../../../lib/inventory/__tests__/inventory-fixtures.js';
import { resetInventoryDb } from '../../../lib/http/inventory-context.js';
import { startLocalApiServer, type LocalApiServer } from '../../../lib/http/local-server.js';
import { resetServiceStore } from '../../../lib/http/service.js';

const API_DIR = fileURLToPath(new URL('../../', import.meta.url));

/** The running API, its site, and calls carrying the token. */
export interface SitesApi {
  server: LocalApiServer;
  site: MutableSite;
  call(path: string, init?: RequestInit): Promise<Response>;
  post(path: string, body?: unknown): Promise<Response>;
  close(): Promise<void>;
}

/**
 * Starts the API on a fresh schema (`<name>_<pid>_<random>`) over a site of `pages` URLs (`perSitemap` to a child
 * sitemap, default 1000), the in-memory job store.
 */
export async function startSitesApi(options: { name: string; token: string; pages: number; perSitemap?: number }): Promise<SitesApi> {
  const schema = `${options.name}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  Object.assign(process.env, {
    DATABASE_URL: `${TEST_DATABASE_URL}?options=${encodeURIComponent(`-c search_path=${schema}`)}`,
    FACTORY_API_TOKEN: options.token,
    FACTORY_ALLOW_PRIVATE: '1',
  });
  delete process.env.REDIS_URL;
  const site = await startMutableSite(options.pages, options.perSitemap);
  const server = await startLocalApiServer(API_DIR, { host: '127.0.0.1', port: 0 });
  const call = (path: string, init: RequestInit = {}) =>
    fetch(`${server.origin}${path}`, { ...init, headers: { authorization: `Bearer ${options.token}`, 'content-type': 'application/json', ...init.headers } });
  return {
    server,
    site,
    call,
    post: (path, body = {}) => call(path, { method: 'POST', body: JSON.stringify(body) }),
    close: async () => {
      await server.close();
      await site.close();
      await resetInventoryDb();
      await resetServiceStore();
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.end();
    },
  };
}
