import { factoryConfig } from '../config/factory-config.js';
import { createLogger, sendLogsTo, setLogLevel } from '../utils/logger.js';
import type { RouteMethod } from './api-routes.js';
import { useConfiguredDispatcher } from './configured-dispatcher.js';
import { corsHeaders, preflightResponse, withHeaders } from './cors.js';
import { assertOwnSiteWrite } from './cross-site.js';
import { assertAuthorized } from './request.js';
import { errorResponse, responseForError } from './responses.js';
import { serviceContext, type ServiceContext } from './service.js';

const log = createLogger('http:handler');
// The functions log by default, to stdout as platforms collect it (the library alone is silent).
sendLogsTo('stdout');
setLogLevel(process.env.FACTORY_LOG_LEVEL || process.env.LOG_LEVEL || 'info');

// On by default (a function's log line per request); the local server writes its own access line instead.
let requestLogging = true;

/** Turns the per-request log line of `handle` off or on: `serve` logs every request itself (lib/http/local-server.ts). */
export function setRequestLogging(on: boolean): void {
  requestLogging = on;
}

// CORS applies to every answer, errors included (a browser cannot read an error it is not allowed to see);
// with a broken configuration there is no origin list, so no CORS headers.
function corsFor(request: Request): Record<string, string> {
  try {
    return corsHeaders(request, factoryConfig().corsOrigins);
  } catch {
    return {};
  }
}

/**
 * Runs a route's body with the service context after auth (`authorize`, by default the bearer token), with the slice
 * engine the configuration names (QStash) in place; every failure
 * becomes the contract's JSON error, and every answer carries the CORS headers the configuration allows. Every route
 * goes through here.
 */
export async function handle(
  request: Request,
  route: (context: ServiceContext) => Promise<Response>,
  authorize: (request: Request, config: ServiceContext['config']) => void = assertAuthorized,
): Promise<Response> {
  const startedAt = Date.now();
  const path = new URL(request.url).pathname;
  let response: Response;
  try {
    const context = serviceContext();
    useConfiguredDispatcher(context.config);
    assertOwnSiteWrite(request, context.config.corsOrigins);
    authorize(request, context.config);
    response = await route(context);
    if (requestLogging) log.info({ event: 'request', method: request.method, path, status: response.status, ms: Date.now() - startedAt }, 'request served');
  } catch (error) {
    response = responseForError(error);
    if (requestLogging)
      log.info({ event: 'request_failed', method: request.method, path, status: response.status, ms: Date.now() - startedAt }, 'request refused');
  }
  return withHeaders(response, corsFor(request));
}

/**
 * The `OPTIONS` export of a route that serves `methods`: answers CORS preflights (no auth: browsers send none
 * on a preflight). `crawler-factory serve` answers it for a route without this export; Vercel needs the export.
 */
export function preflight(methods: readonly RouteMethod[]): (request: Request) => Response {
  const allow = [...new Set<RouteMethod>([...methods, 'OPTIONS'])];
  return (request) => {
    try {
      return preflightResponse(request, allow, factoryConfig().corsOrigins);
    } catch (error) {
      return responseForError(error);
    }
  };
}

/** `405` for a method the route does not serve, with `Allow` (and CORS, so a browser sees why). */
export function methodNotAllowed(request: Request, allow: readonly string[]): Response {
  const response = errorResponse('method_not_allowed', `method ${request.method} not allowed: use ${allow.join(', ')}`, null, { allow: allow.join(', ') });
  return withHeaders(response, corsFor(request));
}
