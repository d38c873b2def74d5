import { createLogger } from '../utils/logger.js';
import type { RouteMethod } from './api-routes.js';
import { corsHeaders, preflightResponse, withHeaders } from './cors.js';
import { assertOwnSiteWrite } from './cross-site.js';
import { assertAuthorized } from './request.js';
import { errorResponse, responseForError } from './responses.js';
import type { ServiceContext, ServiceSource } from './service.js';

const log = createLogger('http:handler');

// CORS applies to every answer, errors included (a browser cannot read an error it is not allowed to see);
// with a broken configuration there is no origin list, so no CORS headers.
function corsFor(service: ServiceSource, request: Request): Record<string, string> {
  try {
    return corsHeaders(request, service().config.corsOrigins);
  } catch {
    return {};
  }
}

/**
 * Runs a route's body with the service context `service` hands out, after auth (`authorize`, by default the bearer
 * token); every failure (a broken configuration included) becomes the contract's JSON error, and every answer carries
 * the CORS headers the configuration allows. Every route goes through here.
 */
export async function handle(
  service: ServiceSource,
  request: Request,
  route: (context: ServiceContext) => Promise<Response>,
  authorize: (request: Request, config: ServiceContext['config']) => void = assertAuthorized,
): Promise<Response> {
  const startedAt = Date.now();
  const path = new URL(request.url).pathname;
  let response: Response;
  // A configuration that cannot be read still gets its refusal logged, as a function logs every request.
  let logRequests = true;
  try {
    const context = service();
    logRequests = context.logRequests;
    assertOwnSiteWrite(request, context.config.corsOrigins);
    authorize(request, context.config);
    response = await route(context);
    if (logRequests) log.info({ event: 'request', method: request.method, path, status: response.status, ms: Date.now() - startedAt }, 'request served');
  } catch (error) {
    response = responseForError(error);
    if (logRequests)
      log.info({ event: 'request_failed', method: request.method, path, status: response.status, ms: Date.now() - startedAt }, 'request refused');
  }
  return withHeaders(response, corsFor(service, request));
}

/**
 * The `OPTIONS` export of a route that serves `methods`: answers CORS preflights (no auth: browsers send none
 * on a preflight). `crawler-factory serve` answers it for a route without this export; Vercel needs the export.
 */
export function preflight(service: ServiceSource, methods: readonly RouteMethod[]): (request: Request) => Response {
  const allow = [...new Set<RouteMethod>([...methods, 'OPTIONS'])];
  return (request) => {
    try {
      return preflightResponse(request, allow, service().config.corsOrigins);
    } catch (error) {
      return responseForError(error);
    }
  };
}

/** `405` for a method the route does not serve, with `Allow` (and CORS, so a browser sees why). */
export function methodNotAllowed(service: ServiceSource, request: Request, allow: readonly string[]): Response {
  const response = errorResponse('method_not_allowed', `method ${request.method} not allowed: use ${allow.join(', ')}`, null, { allow: allow.join(', ') });
  return withHeaders(response, corsFor(service, request));
}
