import { preflight, sliceFailedRoute } from '../../lib/http/index.js';

/**
 * `POST /api/factory/slice-failed` (QStash's failure callback, signed as /api/factory/slice) -> 200
 * `{syncId, slice, failed, state?}`: QStash gave up on a slice after its retries, and the sync ends `failed` with why.
 */
export function POST(request: Request): Promise<Response> {
  return sliceFailedRoute(request);
}

/** CORS preflight (and `Allow`) for this route. */
export const OPTIONS = preflight(['POST']);
