import { assertAuthorized } from './request.js';
import { responseForError } from './responses.js';
import { serviceContext, type ServiceContext } from './service.js';
import { createLogger, sendLogsTo, setLogLevel } from '../utils/logger.js';

const log = createLogger('http:handler');
// The functions log by default, to stdout as platforms collect it (the library alone is silent).
sendLogsTo('stdout');
setLogLevel(process.env.FACTORY_LOG_LEVEL ?? process.env.LOG_LEVEL ?? 'info');

// A malformed variable is the operator's mistake, not the caller's: it must not come back as a 400 naming the variable.
function contextFromEnv(): ServiceContext {
  try {
    return serviceContext();
  } catch (cause) {
    throw new Error('the service environment is invalid', { cause });
  }
}

/** Runs a route's body with the service context after auth; every failure becomes the contract's JSON error. */
export async function handle(request: Request, route: (context: ServiceContext) => Promise<Response>): Promise<Response> {
  const startedAt = Date.now();
  const path = new URL(request.url).pathname;
  try {
    const context = contextFromEnv();
    assertAuthorized(request, context.env);
    const response = await route(context);
    log.info({ event: 'request', method: request.method, path, status: response.status, ms: Date.now() - startedAt }, 'request served');
    return response;
  } catch (error) {
    const response = responseForError(error);
    log.info({ event: 'request_failed', method: request.method, path, status: response.status, ms: Date.now() - startedAt }, 'request refused');
    return response;
  }
}
