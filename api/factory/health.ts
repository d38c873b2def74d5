import { handle, preflight, healthResponse, serviceHealth, serviceFromEnvironment, type ServiceSource } from '../../lib/service/index.js';

/**
 * `GET /api/factory/health` -> 200 `{ok, store: {kind, ok}, database: {kind, ok}, queue: {engine, depth}, syncs: {running,
 * oldestRunningAgeMs, due, oldestDueAgeMs}, sites}`,
 * or 503 `store_unavailable` naming the part that is down, with `Retry-After`. Same auth as every route.
 */
function onGet(service: ServiceSource, request: Request): Promise<Response> {
  return handle(service, request, async (context) => healthResponse(await serviceHealth(context)));
}

/** The route's handlers (and its CORS preflight), bound to the context `service` hands out: `serve` and tests bind their own. */
export function routes(service: ServiceSource) {
  return { GET: (request: Request) => onGet(service, request), OPTIONS: preflight(service, ['GET']) };
}

/** What Vercel calls: the handlers bound to this process's service, made from its environment on the first request. */
export const { GET, OPTIONS } = routes(serviceFromEnvironment);
