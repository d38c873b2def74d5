import { handle, preflight } from '../../lib/http/handler.js';
import { parseSitesPath } from '../../lib/http/sites-path.js';

/** Everything below /api/factory/sites (vercel.json rewrites the sub-paths here; `serve` routes them by prefix). */
export const SUBPATHS = true;

// Loaded on first use: `serve` imports every route at start, and the inventory's modules would slow that for all.
const routes = () => import('../../lib/http/sites-api.js');

/**
 * `GET /api/factory/sites` (list), `/{siteId}`, `/{siteId}/syncs`, `/{siteId}/syncs/{syncId}`,
 * `/{siteId}/urls?prefix=&locale=&changedSince=&removed=&limit=&cursor=` (NDJSON with `Accept: application/x-ndjson`),
 * `/{siteId}/urls/{url-encoded}/history`.
 */
export function GET(request: Request): Promise<Response> {
  return handle(request, async (context) => (await routes()).sitesRoute('GET', parseSitesPath(new URL(request.url).pathname), request, context));
}

/** `POST /api/factory/sites` (add), `/{siteId}/sync` (start, 201), `/{siteId}/sync/stop`, `/{siteId}/syncs/{syncId}` (advance one slice). */
export function POST(request: Request): Promise<Response> {
  return handle(request, async (context) => (await routes()).sitesRoute('POST', parseSitesPath(new URL(request.url).pathname), request, context));
}

/** CORS preflight (and `Allow`) for every sites route. */
export const OPTIONS = preflight(['GET', 'POST']);
