import { ZodError } from 'zod';
import { isFactoryError, type ErrorKind } from '../factory/errors.js';
import { createLogger } from '../utils/logger.js';

const log = createLogger('http:responses');

/** HTTP status for each error kind (DESIGN "HTTP API contract"); upstream failures are 502. */
const STATUS_BY_KIND: Partial<Record<ErrorKind, number>> = {
  bad_request: 400,
  invalid_url: 400,
  unauthorized: 401,
  not_found: 404,
  conflict: 409,
  blocked_ssrf: 422,
};

/** The status a FactoryError kind maps to: client kinds 4xx, everything upstream 502. */
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
export function errorResponse(kind: ErrorKind, message: string, url: string | null = null): Response {
  const error = url ? { kind, message, url } : { kind, message };
  return json({ error }, statusForKind(kind));
}

/** Maps anything a handler throws to the contract's JSON error; unknown failures are logged and hidden. */
export function responseForError(error: unknown): Response {
  if (isFactoryError(error)) {
    return errorResponse(error.kind, error.message, error.url);
  }
  if (error instanceof ZodError) {
    const issue = error.issues[0];
    return errorResponse('bad_request', issue ? `${issue.path.join('.') || 'body'}: ${issue.message}` : 'invalid request');
  }
  log.error({ event: 'handler_crashed', err: error }, 'unexpected handler error');
  return json({ error: { kind: 'fetch_failed', message: 'internal error' } }, 500);
}
