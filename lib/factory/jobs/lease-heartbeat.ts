import type { ClaimedWork, ClaimResult, JobStore } from '../../store/job-store.js';
import type { Logger } from '../../utils/logger.js';

/** Renewals per lease period: a lost or slow renewal still leaves two more tries before the lease lapses. */
const BEATS_PER_LEASE = 3;

/** A claimed piece of work kept alive: `signal` aborts at the slice's hard limit or once the lease is lost. */
export interface HeldWork {
  work: ClaimedWork;
  signal: AbortSignal;
  /** True once a renewal found the lease gone (another worker may own the work now). */
  readonly lost: boolean;
  /** When the work was claimed (ms since the epoch). */
  readonly since: number;
  /** The next claim, when the store handed one out with this work's finish: the loop takes it instead of asking. */
  next: ClaimResult | null;
  stop(): void;
}

/** What the keeper needs of its slice. */
export interface LeaseKeeperOptions {
  store: JobStore;
  jobId: string;
  leaseMs: number;
  /** The slice's hard limit: aborting it aborts every held work. */
  clock: AbortSignal;
  log: Logger;
}

class Held implements HeldWork {
  readonly controller = new AbortController();
  readonly signal = this.controller.signal;
  readonly since = Date.now();
  lost = false;
  next: ClaimResult | null = null;

  constructor(
    readonly work: ClaimedWork,
    private readonly release: (held: Held) => void,
  ) {}

  stop(): void {
    this.release(this);
  }
}

/**
 * Keeps the short leases of a slice's claimed work alive while it is being worked on (compare-and-renew), so a
 * sitemap may be read past the slice's budget while a killed slice's work still comes free within one lease period.
 * One timer and one listener on the slice's hard limit serve every held work: per claimed sitemap, holding costs a
 * set entry and an AbortController, not a timer and a listener (felt at thousands of small sitemaps a second).
 */
export class LeaseKeeper {
  private readonly held = new Set<Held>();
  private timer: NodeJS.Timeout | null = null;
  private readonly onClockAbort = () => {
    for (const held of this.held) held.controller.abort(this.options.clock.reason);
  };
  private readonly drop = (held: Held) => void this.held.delete(held);

  constructor(private readonly options: LeaseKeeperOptions) {
    options.clock.addEventListener('abort', this.onClockAbort, { once: true });
  }

  /** Holds claimed work until its `stop()`: renewed at every beat, aborted at the hard limit or when lost. */
  hold(work: ClaimedWork): HeldWork {
    const held = new Held(work, this.drop);
    if (this.options.clock.aborted) held.controller.abort(this.options.clock.reason);
    this.held.add(held);
    this.timer ??= this.startBeats();
    return held;
  }

  /** Stops the beats and the listener (the slice has ended). */
  dispose(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    this.options.clock.removeEventListener('abort', this.onClockAbort);
  }

  private startBeats(): NodeJS.Timeout {
    const timer = setInterval(
      () => {
        for (const held of this.held) void this.renew(held);
      },
      Math.max(10, Math.floor(this.options.leaseMs / BEATS_PER_LEASE)),
    );
    timer.unref();
    return timer;
  }

  private async renew(held: Held): Promise<void> {
    const { store, jobId, leaseMs, log } = this.options;
    const { workId, token } = held.work;
    try {
      if (await store.renew(jobId, { workId, token, leaseMs })) return;
      held.lost = true;
      held.controller.abort(new Error('lease lost'));
    } catch (error) {
      // A failed renewal is retried at the next beat; the commit's own lease check is the safety net.
      log.debug({ event: 'lease_renew_failed', workId, error: String(error) }, 'lease renewal failed');
    }
  }
}
