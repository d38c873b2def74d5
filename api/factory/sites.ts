import { assertSitesAuthorized, handle, parseSitesPath, preflight, serviceFromEnvironment, sitesRoute, type ServiceSource } from '../../lib/service/index.js';

/** Everything below /api/factory/sites (vercel.json rewrites the sub-paths here; `serve` routes them by prefix). */
export const SUBPATHS = true;

function route(service: ServiceSource, method: 'GET' | 'POST' | 'PATCH' | 'DELETE') {
  return (request: Request): Promise<Response> =>
    handle(service, request, async (context) => sitesRoute(method, parseSitesPath(new URL(request.url).pathname), request, context), assertSitesAuthorized);
}

/** The sites routes (and their CORS preflight), bound to the context `service` hands out: `serve` and tests bind their own. */
export function routes(service: ServiceSource) {
  return {
    /**
     * `GET /api/factory/sites` (list), `/{siteId}`, `/{siteId}/syncs`, `/{siteId}/syncs/{syncId}`,
     * `/{siteId}/urls?prefix=&locale=&changedSince=&removed=&limit=&cursor=` (NDJSON with `Accept: application/x-ndjson`
     * or `format=ndjson`, CSV with `format=csv`, an attachment with `download=1`, authorised by a link's `downloadToken`),
     * `/{siteId}/urls/{url-encoded}/history`.
     */
    GET: route(service, 'GET'),
    /**
     * `POST /api/factory/sites` (add), `/{siteId}/urls/download` (a signed download link, 201), `/{siteId}/sync` (start, 201),
     * `/{siteId}/sync/stop`, `/{siteId}/syncs/{syncId}` (advance one slice).
     */
    POST: route(service, 'POST'),
    /** `PATCH /api/factory/sites/{siteId}`: its root URL and options (409 while a sync runs). */
    PATCH: route(service, 'PATCH'),
    /** `DELETE /api/factory/sites/{siteId}`: the site and every row of it (409 while a sync runs). */
    DELETE: route(service, 'DELETE'),
    OPTIONS: preflight(service, ['GET', 'POST', 'PATCH', 'DELETE']),
  };
}

/** What Vercel calls: the handlers bound to this process's service, made from its environment on the first request. */
export const { GET, POST, PATCH, DELETE, OPTIONS } = routes(serviceFromEnvironment);
