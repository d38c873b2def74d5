import { estimateScope } from '../../lib/factory/scope/scope-estimator.js';
import { ESTIMATE_BUDGET_MS } from '../../lib/http/api-limits.js';
import { handle, preflight } from '../../lib/http/handler.js';
import { readJsonBody } from '../../lib/http/request.js';
import { EstimateRequestSchema } from '../../lib/http/request-schemas.js';
import { json } from '../../lib/http/responses.js';
import type { ServiceContext } from '../../lib/http/service.js';

async function estimate(rootUrl: string, context: ServiceContext): Promise<Response> {
  return json(await estimateScope(rootUrl, { net: context.net, budgetMs: ESTIMATE_BUDGET_MS }));
}

/** `POST /api/factory/estimate {"rootUrl"}` -> 200 ScopeEstimate. */
export function POST(request: Request): Promise<Response> {
  return handle(request, async (context) => estimate((await readJsonBody(request, EstimateRequestSchema)).rootUrl, context));
}

/** `GET /api/factory/estimate?rootUrl=...` -> 200 ScopeEstimate. */
export function GET(request: Request): Promise<Response> {
  return handle(request, async (context) => {
    const query = EstimateRequestSchema.parse(Object.fromEntries(new URL(request.url).searchParams));
    return estimate(query.rootUrl, context);
  });
}

/** CORS preflight (and `Allow`) for this route. */
export const OPTIONS = preflight(['GET', 'POST']);
