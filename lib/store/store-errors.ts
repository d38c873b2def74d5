import { FactoryError, RequestError, type ErrorKind } from '../factory/errors.js';

/** Why a store call failed: its records cannot be trusted, or the store could not be reached. */
export type StoreFailure = 'corrupt' | 'foreign' | 'unavailable';

// A corrupt or foreign record answers 409 `conflict` (the job's state conflicts with what this service
// wrote); an unreachable store is an upstream failure, so it travels as `fetch_failed` (502).
const KIND_OF: Record<StoreFailure, ErrorKind> = { corrupt: 'conflict', foreign: 'conflict', unavailable: 'fetch_failed' };

/** A JobStore failure: a record that does not validate, a key of a foreign shape, or the store being down. */
export class StoreError extends FactoryError {
  override name = 'StoreError';
  readonly failure: StoreFailure;
  readonly key: string | null;

  constructor(failure: StoreFailure, message: string, options: { key?: string | null; cause?: unknown } = {}) {
    super(KIND_OF[failure], message, options.cause === undefined ? {} : { cause: options.cause });
    this.failure = failure;
    this.key = options.key ?? null;
  }
}

/** The job does not exist (never created, or its TTL ran out). */
export function jobNotFound(jobId: string): RequestError {
  return new RequestError('not_found', `no such job: ${jobId}`);
}
