import { FetchError } from '../../core/errors.js';

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

/**
 * Starts a deadline of `timeoutMs` that also fires when `callerSignal` aborts. One timer per request: a pause only
 * notes the time (the reader pauses at every chunk), and a timer that fires early because of pauses re-arms itself
 * for what is left.
 */
export function startDeadline(timeoutMs: number, callerSignal?: AbortSignal): Deadline {
  const controller = new AbortController();
  let expired = false;
  let cleared = false;
  // Budget spent before the current run, and when the current run started (null while paused).
  let spentMs = 0;
  let runningSince: number | null = Date.now();
  let timer: NodeJS.Timeout | null = null;
  const onCallerAbort = () => controller.abort(callerSignal?.reason);
  const live = () => !cleared && !expired && !controller.signal.aborted;
  const arm = (ms: number) => {
    timer = setTimeout(check, ms);
    // A forgotten, unread body must not keep the process alive; its socket does that while it matters.
    timer.unref();
  };
  function check(): void {
    timer = null;
    if (!live() || runningSince === null) return; // paused: resume() re-arms
    const leftMs = timeoutMs - spentMs - (Date.now() - runningSince);
    if (leftMs > 0) return arm(leftMs);
    expired = true;
    controller.abort(new FetchError('timeout', `no complete response within ${timeoutMs} ms`));
  }
  arm(timeoutMs);
  if (callerSignal?.aborted) onCallerAbort();
  else callerSignal?.addEventListener('abort', onCallerAbort, { once: true });
  return {
    signal: controller.signal,
    timeoutMs,
    expired: () => expired,
    pause: () => {
      if (runningSince === null || !live()) return;
      spentMs += Date.now() - runningSince;
      runningSince = null;
    },
    resume: () => {
      if (runningSince !== null || !live()) return;
      runningSince = Date.now();
      if (timer === null) arm(Math.max(0, timeoutMs - spentMs));
    },
    clear: () => {
      if (timer) clearTimeout(timer);
      timer = null;
      cleared = true;
      callerSignal?.removeEventListener('abort', onCallerAbort);
    },
  };
}
