/** When a slice must stop: its budget less a reserve for the last commit and lease release, or the caller's abort. */
export interface SliceClockOptions {
  budgetMs: number;
  reserveMs: number;
  signal?: AbortSignal | undefined;
}

/**
 * A slice's time budget as one AbortSignal: it fires at the soft deadline (budget minus reserve) or when the
 * caller aborts, whichever comes first, so reads in flight stop and the slice saves before the budget ends.
 */
export class SliceClock {
  readonly startedAt = Date.now();
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private readonly softMs: number;
  private readonly onAbort = () => this.controller.abort(this.options.signal?.reason);

  constructor(private readonly options: SliceClockOptions) {
    this.softMs = Math.max(0, options.budgetMs - options.reserveMs);
    this.timer = setTimeout(() => this.spend(), this.softMs);
    if (options.signal?.aborted) this.onAbort();
    options.signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  /** Aborts at the soft deadline or with the caller's signal. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /**
   * True once the slice should wind down. Also read off the clock, not only the timer: parsing can hold the
   * event loop past the soft deadline, and the timer only fires once the loop is free again.
   */
  get stopping(): boolean {
    if (!this.controller.signal.aborted && this.elapsedMs() >= this.softMs) this.spend();
    return this.controller.signal.aborted;
  }

  private spend(): void {
    this.controller.abort(new Error('slice budget spent'));
  }

  /** Milliseconds since the slice started. */
  elapsedMs(): number {
    return Date.now() - this.startedAt;
  }

  /** Clears the timer and the listener on the caller's signal. */
  dispose(): void {
    clearTimeout(this.timer);
    this.options.signal?.removeEventListener('abort', this.onAbort);
  }
}

/** Reserve kept at the end of a budget for the final commit, release and status: a tenth, between 50 ms and 1 s. */
export function defaultReserveMs(budgetMs: number): number {
  return Math.min(1_000, Math.max(50, Math.round(budgetMs / 10)));
}
