/** Lets idle work loops of a slice sleep until a sibling finds new work, a timeout, or the slice's abort. */
export class Wakeup {
  private waiters = new Set<() => void>();

  /** Wakes every waiting loop (new work may be claimable). */
  notify(): void {
    const waiting = this.waiters;
    this.waiters = new Set();
    for (const wake of waiting) wake();
  }

  /** Sleeps until notify(), `ms`, or `signal` aborts. */
  wait(ms: number, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener('abort', done, { once: true });
      this.waiters.add(done);
    });
  }
}
