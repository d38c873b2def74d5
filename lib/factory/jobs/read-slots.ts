/**
 * Work loops a slice runs for `concurrency` read slots. A loop spends part of every cycle on store round trips
 * (its finish, batched with the other loops' finishes, that also claims its next work) without reading; with only
 * `concurrency` loops, a slot stood empty for each of those round trips. Twice as many loops keep the slots busy
 * meanwhile, and give each finish batch more finishes to carry (measured on 5,000 one-URL sitemaps on loopback
 * Redis, a loaded machine: 0.20 store calls a sitemap at 16 loops against 0.26 at 12). Each extra loop holds at most
 * one claimed piece of work waiting for a slot, so few are kept from other workers.
 */
export function workLoopsFor(concurrency: number): number {
  return 2 * concurrency;
}

/**
 * The slice's `concurrency` limit on work that reads the network (a sitemap until it is read, discovery): a loop
 * takes a slot before it reads and gives it back before its store round trips. Waiters are served in order; once
 * `stop` aborts (the slice claims nothing more), every waiter and every later `take` gets no slot, so work claimed
 * but not started is handed back at once. One listener on `stop` serves every waiter.
 */
export class ReadSlots {
  private free: number;
  private readonly waiters: Array<(taken: boolean) => void> = [];
  private readonly onStop = () => {
    for (const wake of this.waiters.splice(0)) wake(false);
  };

  constructor(
    limit: number,
    private readonly stop: AbortSignal,
  ) {
    this.free = limit;
    stop.addEventListener('abort', this.onStop, { once: true });
  }

  /**
   * A function that gives the slot back (calling it again does nothing), once one is free; null when `stop`
   * aborted first.
   */
  async take(): Promise<(() => void) | null> {
    if (this.stop.aborted) return null;
    if (this.free > 0) this.free -= 1;
    else if (!(await new Promise<boolean>((wake) => this.waiters.push(wake)))) return null;
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.give();
    };
  }

  /** Removes the listener on `stop` (the slice has ended). */
  dispose(): void {
    this.stop.removeEventListener('abort', this.onStop);
  }

  // The slot passes straight to the first waiter, so a loop that just gave one back cannot take it out of turn.
  private give(): void {
    const wake = this.waiters.shift();
    if (wake === undefined) this.free += 1;
    else wake(true);
  }
}
