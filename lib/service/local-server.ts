import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { listApiRoutes, loadRouteModule, ROUTE_METHODS, type RouteHandlers, type RouteMethod } from './api-routes.js';
import { methodNotAllowed, preflight } from './handler.js';
import { sendWebResponse, toWebRequest } from './node-adapter.js';
import { errorResponse } from './responses.js';
import type { ServiceSource } from './service.js';
import { assertConsoleDir, staticResponse } from './static-files.js';
import { createLogger } from '../utils/logger.js';

const log = createLogger('http:local-server');

/**
 * One line per request served (`event: "access"`: method, path, status, ms). Its own logger so `serve` can keep it at
 * `info` while the other modules stay at `error`.
 */
export const accessLog = createLogger('http:access');

// Query values that may carry secrets (tokens in links, signatures) never reach a log line; the names do.
const SECRET_PARAM = /token|key|secret|password|passwd|auth|sig|session|cookie|code|credential/i;

/** The request's path and query for a log line, with the values of secret-looking parameters redacted. */
export function loggablePath(url: URL): string {
  const query = [...url.searchParams].map(
    ([name, value]) => `${encodeURIComponent(name)}=${SECRET_PARAM.test(name) ? '[redacted]' : encodeURIComponent(value)}`,
  );
  return query.length === 0 ? url.pathname : `${url.pathname}?${query.join('&')}`;
}

/** How long shutdown waits for running handlers by default: slices stop within it, commit and release. */
export const DEFAULT_SHUTDOWN_GRACE_MS = 2_000;

/** The api/ handlers on a local node:http server, as `crawler-factory serve` runs them. */
export interface LocalApiServer {
  origin: string;
  routes: string[];
  server: Server;
  /** Requests being handled right now. */
  inFlight(): number;
  /**
   * Stops gracefully: refuses new connections, aborts `request.signal` of every running handler (a slice then
   * commits what it read and releases its leases, and answers), waits up to `graceMs` for their answers, then
   * drops whatever is left. Resolves true when every handler answered in time. Idempotent.
   */
  shutdown(options?: { graceMs?: number }): Promise<boolean>;
  /** Closes without aborting handlers: waits for them to finish (tests, and callers that want the old behaviour). */
  close(): Promise<void>;
}

/** A route of the local server: its handlers bound to the server's service, and whether it serves the paths below it. */
interface BoundRoute {
  handlers: RouteHandlers;
  subpaths: boolean;
}

async function loadRoutes(apiDir: string, service: ServiceSource): Promise<Map<string, BoundRoute>> {
  const routes = new Map<string, BoundRoute>();
  for (const route of await listApiRoutes(apiDir)) {
    const module = await loadRouteModule(route);
    routes.set(route.path, { handlers: module.routes(service), subpaths: module.SUBPATHS === true });
  }
  return routes;
}

// As vercel.json's rewrites do on Vercel: a module exporting SUBPATHS also answers every path below its own.
function subpathRoute(routes: Map<string, BoundRoute>, path: string): BoundRoute | undefined {
  for (const [prefix, route] of routes) if (route.subpaths && path.startsWith(`${prefix}/`)) return route;
  return undefined;
}

/** The methods a route serves; OPTIONS always, since preflights are answered for every route. */
function allowedMethods(handlers: RouteHandlers): RouteMethod[] {
  return [...new Set<RouteMethod>([...ROUTE_METHODS.filter((method) => typeof handlers[method] === 'function'), 'OPTIONS'])];
}

// Outside /api/, the console's files (when serving them) come first.
async function respond(routes: Map<string, BoundRoute>, service: ServiceSource, request: Request, publicDir: string | null): Promise<Response> {
  const path = new URL(request.url).pathname;
  const route = routes.get(path) ?? subpathRoute(routes, path);
  const file = publicDir !== null && !route && !path.startsWith('/api/') ? await staticResponse(publicDir, path, request.method) : null;
  if (file) return file;
  if (!route) return errorResponse('not_found', `no route ${path}`);
  const handler = route.handlers[request.method as RouteMethod];
  if (handler) return handler(request);
  const allow = allowedMethods(route.handlers);
  return request.method === 'OPTIONS' ? preflight(service, allow)(request) : methodNotAllowed(service, request, allow);
}

/**
 * Serves every route under `apiDir` (`/api/x/y` -> `api/x/y.ts`), bound to the context `service` hands out, on host:port (port 0: a free
 * one), and the files of `publicDir` outside /api/.
 */
export async function startLocalApiServer(
  apiDir: string,
  listen: { host: string; port: number },
  service: ServiceSource,
  publicDir: string | null = null,
): Promise<LocalApiServer> {
  if (publicDir !== null) await assertConsoleDir(publicDir);
  // One line per request, ours (`accessLog`): every path, static files and 404s included; the handlers log none.
  const source: ServiceSource = () => ({ ...service(), logRequests: false });
  const routes = await loadRoutes(apiDir, source);
  const stopping = new AbortController();
  const running = new Set<Promise<void>>();
  let origin = '';
  const server = createServer((incoming, outgoing) => {
    // The origin is ours, never the client's Host header: a malformed Host must not crash the server.
    let request: Request;
    try {
      request = toWebRequest(incoming, origin, stopping.signal);
    } catch {
      void sendWebResponse(errorResponse('bad_request', 'malformed request target'), outgoing);
      return;
    }
    const startedAt = performance.now();
    const served = Promise.resolve()
      .then(() => respond(routes, source, request, publicDir))
      .then((response) => {
        accessLog.info(
          {
            event: 'access',
            method: request.method,
            path: loggablePath(new URL(request.url)),
            status: response.status,
            ms: Math.round(performance.now() - startedAt),
          },
          'request',
        );
        return sendWebResponse(response, outgoing);
      })
      // Handed to the OS before shutdown may drop the connection.
      .then(() => (outgoing.writableFinished ? undefined : once(outgoing, 'finish').then(() => undefined)))
      .catch((error: unknown) => {
        log.error({ event: 'serve_failed', err: error }, 'response failed');
        outgoing.destroy();
      })
      .finally(() => running.delete(served));
    running.add(served);
  });
  // An idle keep-alive socket must outlive the client's own idle timeout (undici's is a few seconds, a proxy's a
  // minute): a server that closes it first races the client's next request on it, which then fails with ECONNRESET.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
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
  const closed = () => new Promise<void>((done) => server.close(() => done()));
  let shutdown: Promise<boolean> | null = null;
  return {
    origin,
    routes: [...routes.keys()],
    server,
    inFlight: () => running.size,
    shutdown: (options = {}) => {
      shutdown ??= (async () => {
        const graceMs = options.graceMs ?? DEFAULT_SHUTDOWN_GRACE_MS;
        const closing = closed();
        server.closeIdleConnections();
        log.info({ event: 'shutdown', inFlight: running.size, graceMs }, 'shutting down: aborting running slices');
        stopping.abort(new Error('server shutting down'));
        const answered = await Promise.race([Promise.all([...running]).then(() => true), sleep(graceMs, false, { ref: false })]);
        if (!answered) log.warn({ event: 'shutdown_forced', inFlight: running.size }, 'handlers still running after the grace period: dropped');
        server.closeAllConnections();
        await closing;
        return answered;
      })();
      return shutdown;
    },
    close: closed,
  };
}
