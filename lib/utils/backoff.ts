/** How a call is retried: attempts in all, and the waits between them, doubling from `baseDelayMs` up to `maxDelayMs`. */
export interface RetryPolicy {
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

/**
 * The wait before retry `attempt` (the first retry is 1): `baseDelayMs` times `growth` (default 2) per earlier retry,
 * capped at `maxDelayMs`. The one backoff rule of the store, the fetch retries, the Redis reconnects and the API client.
 */
export function backoffDelayMs(policy: Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs'> & { growth?: number }, attempt: number): number {
  return Math.min(policy.maxDelayMs, policy.baseDelayMs * (policy.growth ?? 2) ** (attempt - 1));
}
