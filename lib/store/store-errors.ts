import { FactoryError, RequestError, type ErrorKind } from '../core/errors.js';

/** Why a store call failed: its records cannot be trusted, or the store could not serve it right now. */
export type StoreFailure = 'corrupt' | 'foreign' | 'unavailable';

// A corrupt or foreign record answers 409 `conflict` (the job's state conflicts with what this service
// wrote); a store that is down, full, loading or busy is retryable: 503 `store_unavailable`.
const KIND_OF: Record<StoreFailure, ErrorKind> = { corrupt: 'conflict', foreign: 'conflict', unavailable: 'store_unavailable' };

/** Seconds a client should wait before retrying a call that met an unavailable store. */
export const STORE_RETRY_AFTER_SECONDS = 2;

/** A JobStore failure: a record that does not validate, a key of a foreign shape, or the store being unavailable. */
export class StoreError extends FactoryError {
  override name = 'StoreError';
  readonly failure: StoreFailure;
  readonly key: string | null;
  /** For `unavailable`: how long a client should wait before retrying (the HTTP `Retry-After`). */
  readonly retryAfterSeconds: number | null;

  constructor(failure: StoreFailure, message: string, options: { key?: string | null; cause?: unknown; retryAfterSeconds?: number } = {}) {
    super(KIND_OF[failure], message, options.cause === undefined ? {} : { cause: options.cause });
    this.failure = failure;
    this.key = options.key ?? null;
    this.retryAfterSeconds = failure === 'unavailable' ? (options.retryAfterSeconds ?? STORE_RETRY_AFTER_SECONDS) : null;
  }
}

/** The job does not exist (never created, or its TTL ran out). */
export function jobNotFound(jobId: string): RequestError {
  return new RequestError('not_found', `no such job: ${jobId}`);
}
