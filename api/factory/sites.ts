import { handle } from '../../lib/http/handler.js';
import { sitesRoute } from '../../lib/http/sites-api.js';
import { parseSitesPath } from '../../lib/http/sites-path.js';

/** Everything below /api/factory/sites (vercel.json rewrites the sub-paths here; `serve` routes them by prefix). */
export const SUBPATHS = true;

/**
 * `GET /api/factory/sites` (list), `/{siteId}`, `/{siteId}/syncs`, `/{siteId}/syncs/{syncId}`,
 * `/{siteId}/urls?prefix=&locale=&changedSince=&removed=&limit=&cursor=` (NDJSON with `Accept: application/x-ndjson`),
 * `/{siteId}/urls/{url-encoded}/history`.
 */
export function GET(request: Request): Promise<Response> {
  return handle(request, (context) => sitesRoute('GET', parseSitesPath(new URL(request.url).pathname), request, context));
}

/** `POST /api/factory/sites` (add), `/{siteId}/sync` (start, 201), `/{siteId}/sync/stop`, `/{siteId}/syncs/{syncId}` (advance one slice). */
export function POST(request: Request): Promise<Response> {
  return handle(request, (context) => sitesRoute('POST', parseSitesPath(new URL(request.url).pathname), request, context));
}
