import type { ClaimedWork, ClaimResult } from '../../store/job-store.js';
import type { SliceContext } from './slice-context.js';

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

/**
 * Keeps the short lease of claimed work alive while it is being worked on (compare-and-renew), so a sitemap may
 * be read past the slice's budget while a killed slice's work still comes free within one lease period.
 */
export function holdWork(context: SliceContext, work: ClaimedWork): HeldWork {
  // One controller for both causes, fed by a listener on the clock: AbortSignal.any costs tens of µs per claimed
  // sitemap and keeps a weak reference on the slice's signal for each until it is collected.
  const controller = new AbortController();
  let lost = false;
  const clock = context.clock.signal;
  const onClockAbort = () => controller.abort(clock.reason);
  if (clock.aborted) onClockAbort();
  else clock.addEventListener('abort', onClockAbort, { once: true });
  const renew = async () => {
    try {
      const held = await context.store.renew(context.jobId, { workId: work.workId, token: work.token, leaseMs: context.leaseMs });
      if (!held) {
        lost = true;
        controller.abort(new Error('lease lost'));
      }
    } catch (error) {
      // A failed renewal is retried at the next beat; the commit's own lease check is the safety net.
      context.log.debug({ event: 'lease_renew_failed', workId: work.workId, error: String(error) }, 'lease renewal failed');
    }
  };
  const timer = setInterval(() => void renew(), Math.max(10, Math.floor(context.leaseMs / BEATS_PER_LEASE)));
  timer.unref();
  return {
    work,
    signal: controller.signal,
    since: Date.now(),
    next: null,
    get lost() {
      return lost;
    },
    stop: () => {
      clearInterval(timer);
      clock.removeEventListener('abort', onClockAbort);
    },
  };
}
