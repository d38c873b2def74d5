// One sites API under test: a Postgres schema of its own, a loopback site, the local server, and authed calls.
import { fileURLToPath } from 'node:url';
import { createTestSchema, startMutableSite, type MutableSite } from '../../../lib/inventory/__tests__/inventory-fixtures.js';
import { readFactoryConfig } from '../../../lib/config/factory-config.js';
import { startLocalApiServer, type LocalApiServer } from '../../../lib/service/local-server.js';
import { createService, type ServiceContext } from '../../../lib/service/service.js';

const API_DIR = fileURLToPath(new URL('../../', import.meta.url));

/** The running API, its site, and calls carrying the token. */
export interface SitesApi {
  server: LocalApiServer;
  site: MutableSite;
  /** The Postgres URL of the API's own schema. */
  databaseUrl: string;
  /** The service the API runs with now. */
  service(): ServiceContext;
  /**
   * Runs the API with `env` on top of its own configuration from now on (null: back to its own), as a redeploy with
   * changed variables: a service of its own, whose handles are closed at the next change.
   */
  configure(env: Record<string, string | undefined> | null): Promise<void>;
  call(path: string, init?: RequestInit): Promise<Response>;
  post(path: string, body?: unknown): Promise<Response>;
  close(): Promise<void>;
}

/**
 * Starts the API on a fresh schema (`<name>_<pid>_<random>`) over a site of `pages` URLs (`perSitemap` to a child
 * sitemap, default 1000), the in-memory job store.
 */
export async function startSitesApi(options: { name: string; token: string; pages: number; perSitemap?: number }): Promise<SitesApi> {
  const { databaseUrl, drop } = await createTestSchema(options.name);
  const env = { DATABASE_URL: databaseUrl, FACTORY_API_TOKEN: options.token, FACTORY_ALLOW_PRIVATE: '1' };
  const own = createService(readFactoryConfig(env));
  let current = own;
  const site = await startMutableSite(options.pages, options.perSitemap);
  const server = await startLocalApiServer(API_DIR, { host: '127.0.0.1', port: 0 }, () => current);
  const call = (path: string, init: RequestInit = {}) =>
    fetch(`${server.origin}${path}`, { ...init, headers: { authorization: `Bearer ${options.token}`, 'content-type': 'application/json', ...init.headers } });
  const api: SitesApi = {
    server,
    site,
    databaseUrl,
    service: () => current,
    configure: async (extra) => {
      const previous = current;
      current = extra === null ? own : createService(readFactoryConfig({ ...env, ...extra }));
      if (previous !== own) await previous.release();
    },
    call,
    post: (path, body = {}) => call(path, { method: 'POST', body: JSON.stringify(body) }),
    close: async () => {
      await server.close();
      await site.close();
      await api.configure(null);
      await own.release();
      await drop();
    },
  };
  return api;
}
