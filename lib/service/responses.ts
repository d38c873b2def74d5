import { ZodError } from 'zod';
import { isFactoryError, type ErrorKind } from '../core/errors.js';
import { createLogger } from '../utils/logger.js';

const log = createLogger('http:responses');

/** HTTP status for each error kind (DESIGN "HTTP API contract"); upstream failures are 502. */
const STATUS_BY_KIND: Partial<Record<ErrorKind, number>> = {
  bad_request: 400,
  invalid_url: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  blocked_ssrf: 422,
  rate_limited: 429,
  config: 500,
  internal: 500,
  store_unavailable: 503,
};

/** The status a FactoryError kind maps to: client kinds 4xx, deployment and bugs 500, the store 503, upstream 502. */
export function statusForKind(kind: ErrorKind): number {
  return STATUS_BY_KIND[kind] ?? 502;
}

/** A JSON response with no-store caching (job state changes under the client's feet). */
export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers },
  });
}

/** `{"error": {"kind", "message", "url"?}}` with the kind's status. */
export function errorResponse(kind: ErrorKind, message: string, url: string | null = null, headers: Record<string, string> = {}): Response {
  const error = url ? { kind, message, url } : { kind, message };
  return json({ error }, statusForKind(kind), headers);
}

/** Seconds to wait before a retry, for errors that say so (a store that is unavailable right now). */
function retryAfterOf(error: object): Record<string, string> {
  const seconds = (error as { retryAfterSeconds?: unknown }).retryAfterSeconds;
  return typeof seconds === 'number' && seconds > 0 ? { 'retry-after': String(Math.ceil(seconds)) } : {};
}

/**
 * Maps anything a handler throws to the contract's JSON error. Anything that is not a typed error is a bug:
 * `internal` (500), logged here once with its stack, its message kept from the client.
 */
export function responseForError(error: unknown): Response {
  if (isFactoryError(error)) {
    return errorResponse(error.kind, error.message, error.url, retryAfterOf(error));
  }
  if (error instanceof ZodError) {
    const issue = error.issues[0];
    return errorResponse('bad_request', issue ? `${issue.path.join('.') || 'body'}: ${issue.message}` : 'invalid request');
  }
  log.error({ event: 'handler_crashed', err: error }, 'unexpected handler error');
  return errorResponse('internal', 'internal error');
}
