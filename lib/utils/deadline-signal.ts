/**
 * A signal that aborts when `signal` does or once `ms` have passed, whichever comes first (the reason then a
 * `TimeoutError`). Not `AbortSignal.any([signal, AbortSignal.timeout(ms)])`: on Node 20 the combined signal holds the
 * timeout's signal only weakly, so a garbage collection before it fires means it never fires (a 300 ms deadline
 * still open after 5 s with a collection every 500 ms). Here the pending timer holds the controller until it fires.
 */
export function deadlineSignal(signal: AbortSignal, ms: number): AbortSignal {
  const controller = new AbortController();
  setTimeout(() => controller.abort(new DOMException(`the deadline of ${ms} ms passed`, 'TimeoutError')), ms).unref();
  return AbortSignal.any([signal, controller.signal]);
}
