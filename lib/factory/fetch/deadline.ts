import { FetchError } from '../errors.js';

/** One wall-clock budget for a whole request (connect, redirects, headers, body), merged with the caller's signal. */
export interface Deadline {
  signal: AbortSignal;
  timeoutMs: number;
  /** True once the budget ran out (as opposed to the caller cancelling). */
  expired(): boolean;
  /** Stops the timer and forgets the caller's signal; safe to call twice. */
  clear(): void;
}

/** Starts a deadline of `timeoutMs` that also fires when `callerSignal` aborts. */
export function startDeadline(timeoutMs: number, callerSignal?: AbortSignal): Deadline {
  const controller = new AbortController();
  let expired = false;
  const onCallerAbort = () => controller.abort(callerSignal?.reason);
  const timer = setTimeout(() => {
    expired = true;
    controller.abort(new FetchError('timeout', `no complete response within ${timeoutMs} ms`));
  }, timeoutMs);
  // A forgotten, unread body must not keep the process alive; its socket does that while it matters.
  timer.unref();
  if (callerSignal?.aborted) onCallerAbort();
  else callerSignal?.addEventListener('abort', onCallerAbort, { once: true });
  return {
    signal: controller.signal,
    timeoutMs,
    expired: () => expired,
    clear: () => {
      clearTimeout(timer);
      callerSignal?.removeEventListener('abort', onCallerAbort);
    },
  };
}
