/** When a slice stops claiming (its budget less a reserve) and when work in flight must end (its hard limit). */
export interface SliceClockOptions {
  budgetMs: number;
  reserveMs: number;
  /** Work in flight may run past the budget up to here (less the reserve); defaults to the budget. */
  hardLimitMs?: number;
  signal?: AbortSignal | undefined;
}

/**
 * A slice's time as two deadlines. The soft one (budget minus reserve) only stops claiming new work: a sitemap
 * being read goes on, because re-fetching it to its offset later costs the same transfer time again. The hard one
 * (hard limit minus reserve), or the caller's abort, ends the reads in flight through `signal`; what they read is
 * committed and the slice still returns in time.
 */
export class SliceClock {
  readonly startedAt = Date.now();
  private readonly soft = new AbortController();
  private readonly hard = new AbortController();
  private readonly timers: NodeJS.Timeout[];
  private readonly softMs: number;
  private readonly hardMs: number;
  private readonly onAbort = () => {
    this.soft.abort(this.options.signal?.reason);
    this.hard.abort(this.options.signal?.reason);
  };

  constructor(private readonly options: SliceClockOptions) {
    this.softMs = Math.max(0, options.budgetMs - options.reserveMs);
    this.hardMs = Math.max(this.softMs, (options.hardLimitMs ?? options.budgetMs) - options.reserveMs);
    this.timers = [setTimeout(() => this.spend(), this.softMs), setTimeout(() => this.expire(), this.hardMs)];
    if (options.signal?.aborted) this.onAbort();
    options.signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  /** Aborts at the hard deadline or with the caller's signal: reads in flight listen to it. */
  get signal(): AbortSignal {
    return this.hard.signal;
  }

  /** Aborts at the soft deadline or with the caller's signal: idle waits for claimable work listen to it. */
  get claimSignal(): AbortSignal {
    return this.soft.signal;
  }

  /**
   * True once the slice should claim nothing more. Also read off the clock, not only the timer: parsing can hold
   * the event loop past the soft deadline, and the timer only fires once the loop is free again.
   */
  get stopping(): boolean {
    if (!this.soft.signal.aborted && this.elapsedMs() >= this.softMs) this.spend();
    return this.soft.signal.aborted;
  }

  /** True once work in flight must end: the hard deadline passed or the caller aborted. Read off the clock too. */
  get ending(): boolean {
    if (!this.hard.signal.aborted && this.elapsedMs() >= this.hardMs) this.expire();
    return this.hard.signal.aborted;
  }

  /** True when the hard limit ended the slice (as opposed to the caller's abort). */
  get expired(): boolean {
    return this.ending && !this.options.signal?.aborted;
  }

  /** The hard limit, in ms from the slice's start (reserve deducted). */
  get hardLimitMs(): number {
    return this.hardMs;
  }

  private spend(): void {
    this.soft.abort(new Error('slice budget spent'));
  }

  private expire(): void {
    this.spend();
    this.hard.abort(new Error('slice hard limit reached'));
  }

  /** Milliseconds since the slice started. */
  elapsedMs(): number {
    return Date.now() - this.startedAt;
  }

  /** Clears the timers and the listener on the caller's signal. */
  dispose(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.options.signal?.removeEventListener('abort', this.onAbort);
  }
}

/** Reserve kept at the end of a budget for the final commit, release and status: a tenth, between 50 ms and 1 s. */
export function defaultReserveMs(budgetMs: number): number {
  return Math.min(1_000, Math.max(50, Math.round(budgetMs / 10)));
}
