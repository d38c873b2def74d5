/**
 * A non-blocking counting semaphore: a caller either gets a slot at once or is told to come back, so a burst
 * beyond the limit is refused (HTTP 429) instead of queueing work that would only degrade every answer.
 */
export class Semaphore {
  private active = 0;

  /** Slots in use now. */
  get inUse(): number {
    return this.active;
  }

  /** A release function when fewer than `limit` slots are in use, else null. Releasing twice frees one slot. */
  tryAcquire(limit: number): (() => void) | null {
    if (this.active >= limit) return null;
    this.active += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.active -= 1;
    };
  }
}
