import { FetchError, isFactoryError } from '../../core/errors.js';
import { createLogger } from '../../utils/logger.js';
import type { Deadline } from './deadline.js';

const log = createLogger('factory:fetch');

/** What is known where a request failed. */
export interface FailureContext {
  url: string;
  deadline: Deadline;
  callerSignal?: AbortSignal;
  bytes?: number;
}

/**
 * Turns whatever undici or a stream threw into what callers expect: the caller's own abort reason,
 * a FactoryError as it is, `timeout` when the deadline fired, else `fetch_failed`.
 */
export function toFetchFailure(error: unknown, context: FailureContext): unknown {
  if (context.callerSignal?.aborted && !context.deadline.expired()) return context.callerSignal.reason;
  if (isFactoryError(error) && error.kind !== 'timeout') return error;
  const { url, bytes } = context;
  const failure = context.deadline.expired()
    ? new FetchError('timeout', `no complete response within ${context.deadline.timeoutMs} ms`, { url, bytes, cause: error })
    : new FetchError('fetch_failed', describe(error), { url, bytes, cause: error });
  log.warn({ event: 'fetch_failed', kind: failure.kind, url, bytes }, failure.message);
  return failure;
}

// undici puts the useful part in `code` (UND_ERR_HEADERS_OVERFLOW, ECONNREFUSED); keep it in the message.
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? `${error.message} (${code})` : error.message;
}
