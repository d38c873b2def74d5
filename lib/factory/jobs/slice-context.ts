import { newLeaseToken } from '../../store/job-id.js';
import type { ClaimRequest, JobStore } from '../../store/job-store.js';
import type { JobMeta } from '../../store/records.js';
import type { Logger } from '../../utils/logger.js';
import type { FinishBatch } from './finish-batch.js';
import type { LeaseKeeper } from './lease-heartbeat.js';
import type { ReadSlots } from './read-slots.js';
import type { WalkOptions } from '../../core/limits.js';
import type { SliceClock } from './slice-clock.js';
import { MAX_CLAIMS_WITHOUT_PROGRESS } from './stall-policy.js';
import type { Wakeup } from './wakeup.js';

/** What every work loop of one slice shares: the store, the job, the clock and the slice's stop flags. */
export interface SliceContext {
  store: JobStore;
  jobId: string;
  meta: JobMeta;
  options: WalkOptions;
  clock: SliceClock;
  wakeup: Wakeup;
  log: Logger;
  /** Sends the loops' finishes to the store together (finishMany). */
  finishes: FinishBatch;
  /** Renews the leases of the work the slice's loops hold. */
  leases: LeaseKeeper;
  /** The `concurrency` limit on work reading the network: more loops run than slots (see workLoopsFor). */
  readSlots: ReadSlots;
  /** Lease asked for each claim and renewed by heartbeat: short, so a killed slice's work frees within seconds. */
  leaseMs: number;
  /** How often an idle loop asks for work while siblings or other workers hold the rest. */
  idlePollMs: number;
  /** How long a loop with nothing claimable (and no busy sibling) keeps asking before the slice ends. */
  idleWaitMs: number;
  /** Work loops busy with a claimed piece of work right now. */
  busy: number;
  /** Set when the job is no longer running (done, stopped, failed) or a loop hit a store failure. */
  halted: boolean;
  /** The first store failure of the slice; runSlice rethrows it once every loop has wound down. */
  failure: unknown;
}

/** True when the loops of a slice should stop taking and doing work. */
export function shouldStop(context: SliceContext): boolean {
  return context.halted || context.clock.stopping;
}

/** Stops every loop of the slice (job finished or halted, or a store failure). */
export function haltSlice(context: SliceContext, failure?: unknown): void {
  if (failure !== undefined && context.failure === undefined) context.failure = failure;
  context.halted = true;
  context.wakeup.notify();
}

/** A fresh claim under this slice's lease length and the stall policy's limit of claims without progress. */
export function claimRequest(context: SliceContext): ClaimRequest {
  return { token: newLeaseToken(), leaseMs: context.leaseMs, maxClaims: MAX_CLAIMS_WITHOUT_PROGRESS };
}
