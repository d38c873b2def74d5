import { estimateScope, createLogger } from '../../lib/index.js';
import {
  ESTIMATE_BUDGET_MS,
  handle,
  preflight,
  parseQuery,
  readJsonBody,
  EstimateRequestSchema,
  errorResponse,
  json,
  serviceFromEnvironment,
  type ServiceContext,
  type ServiceSource,
  Semaphore,
} from '../../lib/service/index.js';

const log = createLogger('http:estimate');

// An estimate ends within its deadline plus 250 ms, so a slot is free again by then.
const RETRY_AFTER_SECONDS = Math.ceil((ESTIMATE_BUDGET_MS + 250) / 1000);
const running = new Semaphore();

async function estimate(rootUrl: string, context: ServiceContext): Promise<Response> {
  const limit = context.config.estimateConcurrency;
  const release = running.tryAcquire(limit);
  if (release === null) {
    log.warn({ event: 'estimate_rate_limited', limit }, 'estimate refused: concurrency limit reached');
    const message = `${limit} estimates are already running: retry in ${RETRY_AFTER_SECONDS} s`;
    return errorResponse('rate_limited', message, null, { 'retry-after': String(RETRY_AFTER_SECONDS) });
  }
  try {
    return json(await estimateScope(rootUrl, { net: context.net, deadlineMs: ESTIMATE_BUDGET_MS }));
  } finally {
    release();
  }
}

/** `POST /api/factory/estimate {"rootUrl"}` -> 200 ScopeEstimate, or 429 `rate_limited` with Retry-After under load. */
function onPost(service: ServiceSource, request: Request): Promise<Response> {
  return handle(service, request, async (context) => estimate((await readJsonBody(request, EstimateRequestSchema)).rootUrl, context));
}

/** `GET /api/factory/estimate?rootUrl=...` -> 200 ScopeEstimate, or 429 `rate_limited` with Retry-After under load. */
function onGet(service: ServiceSource, request: Request): Promise<Response> {
  return handle(service, request, async (context) => {
    const query = parseQuery(request, EstimateRequestSchema);
    return estimate(query.rootUrl, context);
  });
}

/** The route's handlers (and its CORS preflight), bound to the context `service` hands out: `serve` and tests bind their own. */
export function routes(service: ServiceSource) {
  return {
    POST: (request: Request) => onPost(service, request),
    GET: (request: Request) => onGet(service, request),
    OPTIONS: preflight(service, ['GET', 'POST']),
  };
}

/** What Vercel calls: the handlers bound to this process's service, made from its environment on the first request. */
export const { POST, GET, OPTIONS } = routes(serviceFromEnvironment);
