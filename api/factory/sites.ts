import { assertSitesAuthorized, handle, parseSitesPath, preflight, sitesRoute } from '../../lib/http/index.js';

/** Everything below /api/factory/sites (vercel.json rewrites the sub-paths here; `serve` routes them by prefix). */
export const SUBPATHS = true;

function route(method: 'GET' | 'POST' | 'PATCH' | 'DELETE') {
  return (request: Request): Promise<Response> =>
    handle(request, async (context) => sitesRoute(method, parseSitesPath(new URL(request.url).pathname), request, context), assertSitesAuthorized);
}

/**
 * `GET /api/factory/sites` (list), `/{siteId}`, `/{siteId}/syncs`, `/{siteId}/syncs/{syncId}`,
 * `/{siteId}/urls?prefix=&locale=&changedSince=&removed=&limit=&cursor=` (NDJSON with `Accept: application/x-ndjson`
 * or `format=ndjson`, CSV with `format=csv`, an attachment with `download=1`, authorised by a link's `downloadToken`),
 * `/{siteId}/urls/{url-encoded}/history`.
 */
export const GET = route('GET');

/**
 * `POST /api/factory/sites` (add), `/{siteId}/urls/download` (a signed download link, 201), `/{siteId}/sync` (start, 201),
 * `/{siteId}/sync/stop`, `/{siteId}/syncs/{syncId}` (advance one slice).
 */
export const POST = route('POST');

/** `PATCH /api/factory/sites/{siteId}`: its root URL and options (409 while a sync runs). */
export const PATCH = route('PATCH');

/** `DELETE /api/factory/sites/{siteId}`: the site and every row of it (409 while a sync runs). */
export const DELETE = route('DELETE');

/** CORS preflight (and `Allow`) for every sites route. */
export const OPTIONS = preflight(['GET', 'POST', 'PATCH', 'DELETE']);
