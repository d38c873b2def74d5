import { FetchError } from '../errors.js';

/**
 * One wall-clock budget for a whole request (connect, redirects, headers, body), merged with the caller's signal.
 * The clock stops while the body waits on its reader (backpressure): a slow consumer must not look like a
 * slow server, while a server dripping bytes still runs out of time.
 */
export interface Deadline {
  signal: AbortSignal;
  timeoutMs: number;
  /** True once the budget ran out (as opposed to the caller cancelling). */
  expired(): boolean;
  /** Stops the clock while the reader holds a chunk. */
  pause(): void;
  /** Restarts the clock with what was left of the budget. */
  resume(): void;
  /** Stops the timer and forgets the caller's signal; safe to call twice. */
  clear(): void;
}

/** Starts a deadline of `timeoutMs` that also fires when `callerSignal` aborts. */
export function startDeadline(timeoutMs: number, callerSignal?: AbortSignal): Deadline {
  const controller = new AbortController();
  let expired = false;
  let remainingMs = timeoutMs;
  let startedAt = Date.now();
  let timer: NodeJS.Timeout | null = null;
  let cleared = false;
  const onCallerAbort = () => controller.abort(callerSignal?.reason);
  const arm = () => {
    startedAt = Date.now();
    timer = setTimeout(() => {
      expired = true;
      controller.abort(new FetchError('timeout', `no complete response within ${timeoutMs} ms`));
    }, remainingMs);
    // A forgotten, unread body must not keep the process alive; its socket does that while it matters.
    timer.unref();
  };
  const disarm = () => {
    if (timer) clearTimeout(timer);
    timer = null;
  };
  arm();
  if (callerSignal?.aborted) onCallerAbort();
  else callerSignal?.addEventListener('abort', onCallerAbort, { once: true });
  return {
    signal: controller.signal,
    timeoutMs,
    expired: () => expired,
    pause: () => {
      if (!timer || expired) return;
      disarm();
      remainingMs = Math.max(0, remainingMs - (Date.now() - startedAt));
    },
    resume: () => {
      if (!timer && !cleared && !expired && !controller.signal.aborted) arm();
    },
    clear: () => {
      disarm();
      cleared = true;
      callerSignal?.removeEventListener('abort', onCallerAbort);
    },
  };
}
