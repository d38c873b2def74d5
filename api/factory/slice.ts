import { preflight, sliceRoute } from '../../lib/http/index.js';

/**
 * `POST /api/factory/slice` (QStash only: `Upstash-Signature` verified with QSTASH_CURRENT_SIGNING_KEY /
 * QSTASH_NEXT_SIGNING_KEY, 401 otherwise) `{syncId, slice}` -> 200 `{syncId, slice, ran, state?}`: runs the queued slice
 * of a sync once (a repeated delivery runs nothing) and publishes the next while the sync runs.
 */
export function POST(request: Request): Promise<Response> {
  return sliceRoute(request);
}

/** CORS preflight (and `Allow`) for this route. */
export const OPTIONS = preflight(['POST']);
