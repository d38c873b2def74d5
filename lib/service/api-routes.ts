import { readdir } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { WebHandler } from './node-adapter.js';
import type { ServiceSource } from './service.js';

/** One API route: its URL path and the module exporting GET/POST handlers. */
export interface ApiRoute {
  path: string;
  file: string;
}

/** The methods a route module may export (Vercel's names). */
export const ROUTE_METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const;

/** One of the route methods. */
export type RouteMethod = (typeof ROUTE_METHODS)[number];

/** A route's handlers by method. */
export type RouteHandlers = Partial<Record<RouteMethod, WebHandler>>;

/**
 * The exports of a route module: the handlers Vercel calls (bound to the process's service), `routes` that binds
 * them to another service (`serve`, tests), and `SUBPATHS` on a module that serves every path below its own.
 */
export type RouteModule = RouteHandlers & { routes: (service: ServiceSource) => RouteHandlers; SUBPATHS?: boolean };

/** Vercel's rule: a `_`-prefixed or `__tests__` path segment is never a route. */
function isRouteFile(path: string): boolean {
  const segments = path.split(sep);
  // .ts in the sources, .js in the compiled package (dist/api/).
  return /\.[tj]s$/.test(path) && !path.endsWith('.d.ts') && segments.every((segment) => !segment.startsWith('_'));
}

/** Lists the routes under `apiDir`: `api/factory/discover.ts` -> `/api/factory/discover`. */
export async function listApiRoutes(apiDir: string): Promise<ApiRoute[]> {
  const entries = await readdir(apiDir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(apiDir, join(entry.parentPath, entry.name)))
    .filter(isRouteFile)
    .map((file) => ({ path: `/api/${file.slice(0, -3).split(sep).join('/')}`, file: join(apiDir, file) }));
}

/** Imports a route module (TypeScript: the process runs under tsx). */
export async function loadRouteModule(route: ApiRoute): Promise<RouteModule> {
  return (await import(pathToFileURL(route.file).href)) as RouteModule;
}
