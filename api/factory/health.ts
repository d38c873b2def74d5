import { handle, preflight, healthResponse, serviceHealth } from '../../lib/http/index.js';

/**
 * `GET /api/factory/health` -> 200 `{ok, store: {kind, ok}, database: {kind, ok}, queue: {engine, depth}, syncs: {running,
 * oldestRunningAgeMs, due, oldestDueAgeMs}, sites}`,
 * or 503 `store_unavailable` naming the part that is down, with `Retry-After`. Same auth as every route.
 */
export function GET(request: Request): Promise<Response> {
  return handle(request, async (context) => healthResponse(await serviceHealth(context)));
}

/** CORS preflight (and `Allow`) for this route. */
export const OPTIONS = preflight(['GET']);
