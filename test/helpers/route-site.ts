import { afterEach } from 'vitest';
import { startLoopbackServer, routeTable, type CannedResponse, type LoopbackServer, type RouteResolver } from '../../lib/demo/loopback-server.js';

/** Builds a site's routes once its origin is known (so bodies can name their own absolute URLs). */
export type RoutesOf = (origin: string) => Record<string, CannedResponse>;

/**
 * Starts loopback sites for a test and closes each after it: `site(routes)` serves a route table (or one built from the
 * site's origin), `site.with(resolve)` any resolver.
 */
export interface RouteSites {
  (routes: Record<string, CannedResponse> | RoutesOf): Promise<LoopbackServer>;
  with(resolve: RouteResolver): Promise<LoopbackServer>;
}

/** A loopback-site starter for the enclosing file or describe block; every site it started is closed after each test. */
export function useRouteSites(): RouteSites {
  const open: LoopbackServer[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((server) => server.close()));
  });
  const started = async (resolve: RouteResolver): Promise<LoopbackServer> => {
    const server = await startLoopbackServer(resolve);
    open.push(server);
    return server;
  };
  const site = async (routes: Record<string, CannedResponse> | RoutesOf): Promise<LoopbackServer> => {
    let table: Record<string, CannedResponse> = {};
    const server = await started((request, response) => routeTable(table)(request, response));
    table = typeof routes === 'function' ? routes(server.origin) : routes;
    return server;
  };
  return Object.assign(site, { with: started });
}
