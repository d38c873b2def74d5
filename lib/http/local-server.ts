import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { listApiRoutes, loadRouteModule, type RouteModule } from './api-routes.js';
import { sendWebResponse, toWebRequest } from './node-adapter.js';
import { errorResponse, json } from './responses.js';
import { staticResponse } from './static-files.js';
import { createLogger } from '../utils/logger.js';

const log = createLogger('http:local-server');

/** The api/ handlers on a local node:http server, as `crawler-factory serve` runs them. */
export interface LocalApiServer {
  origin: string;
  routes: string[];
  server: Server;
  close(): Promise<void>;
}

async function loadRoutes(apiDir: string): Promise<Map<string, RouteModule>> {
  const routes = new Map<string, RouteModule>();
  for (const route of await listApiRoutes(apiDir)) routes.set(route.path, await loadRouteModule(route));
  return routes;
}

const HTTP_METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'] as const;

// As vercel.json's rewrites do on Vercel: a module exporting SUBPATHS also answers every path below its own.
function subpathRoute(routes: Map<string, RouteModule>, path: string): RouteModule | undefined {
  for (const [route, module] of routes) if (module.SUBPATHS === true && path.startsWith(`${route}/`)) return module;
  return undefined;
}

/** Serves every route under `apiDir` (`/api/x/y` -> `api/x/y.ts`) on host:port (port 0: a free one), and the files of `publicDir` outside /api/. */
export async function startLocalApiServer(apiDir: string, listen: { host: string; port: number }, publicDir: string | null = null): Promise<LocalApiServer> {
  const routes = await loadRoutes(apiDir);
  let origin = '';
  const server = createServer((incoming, outgoing) => {
    // The origin is ours, never the client's Host header: a malformed Host must not crash the server.
    let request: Request;
    try {
      request = toWebRequest(incoming, origin);
    } catch {
      void sendWebResponse(errorResponse('bad_request', 'malformed request target'), outgoing);
      return;
    }
    const path = new URL(request.url).pathname;
    const module = routes.get(path) ?? subpathRoute(routes, path);
    const method = HTTP_METHODS.find((name) => name === request.method);
    const handler = method === undefined ? undefined : module?.[method];
    const respond = async () => {
      const file = publicDir !== null && !module && !path.startsWith('/api/') ? await staticResponse(publicDir, path, request.method) : null;
      if (file) return file;
      if (!module) return errorResponse('not_found', `no route ${path}`);
      if (!handler) return json({ error: { kind: 'bad_request', message: `method ${request.method} not allowed` } }, 405);
      return handler(request);
    };
    respond()
      .then((response) => sendWebResponse(response, outgoing))
      .catch((error: unknown) => {
        log.error({ event: 'serve_failed', err: error }, 'response failed');
        outgoing.destroy();
      });
  });
  await new Promise<void>((ready, fail) => {
    server.once('error', fail);
    server.listen(listen.port, listen.host, () => {
      server.off('error', fail);
      ready();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = listen.host.includes(':') ? `[${listen.host}]` : listen.host;
  origin = `http://${host}:${port}`;
  return {
    origin,
    routes: [...routes.keys()],
    server,
    close: () => new Promise((done) => server.close(() => done())),
  };
}
