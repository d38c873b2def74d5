import { preflight, sliceFailedRoute, serviceFromEnvironment, type ServiceSource } from '../../lib/service/index.js';

/**
 * `POST /api/factory/slice-failed` (QStash's failure callback, signed as /api/factory/slice) -> 200
 * `{syncId, slice, failed, state?}`: QStash gave up on a slice after its retries, and the sync ends `failed` with why.
 */
function onPost(service: ServiceSource, request: Request): Promise<Response> {
  return sliceFailedRoute(service, request);
}

/** The route's handlers (and its CORS preflight), bound to the context `service` hands out: `serve` and tests bind their own. */
export function routes(service: ServiceSource) {
  return { POST: (request: Request) => onPost(service, request), OPTIONS: preflight(service, ['POST']) };
}

/** What Vercel calls: the handlers bound to this process's service, made from its environment on the first request. */
export const { POST, OPTIONS } = routes(serviceFromEnvironment);
