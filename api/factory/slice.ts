import { preflight, sliceRoute, serviceFromEnvironment, type ServiceSource } from '../../lib/service/index.js';

/**
 * `POST /api/factory/slice` (QStash only: `Upstash-Signature` verified with QSTASH_CURRENT_SIGNING_KEY /
 * QSTASH_NEXT_SIGNING_KEY, 401 otherwise) `{syncId, slice}` -> 200 `{syncId, slice, ran, state?}`: runs the queued slice
 * of a sync once (a repeated delivery runs nothing) and publishes the next while the sync runs.
 */
function onPost(service: ServiceSource, request: Request): Promise<Response> {
  return sliceRoute(service, request);
}

/** The route's handlers (and its CORS preflight), bound to the context `service` hands out: `serve` and tests bind their own. */
export function routes(service: ServiceSource) {
  return { POST: (request: Request) => onPost(service, request), OPTIONS: preflight(service, ['POST']) };
}

/** What Vercel calls: the handlers bound to this process's service, made from its environment on the first request. */
export const { POST, OPTIONS } = routes(serviceFromEnvironment);
