import type { SyncRuntime } from '../inventory/sync-driver.js';
import type { JobStore } from '../store/job-store.js';

/**
 * Who runs a running sync's next slice when the caller that ran this one goes away:
 * - `in-process`: a long-lived process (`serve` on PGlite) drives it in a loop of its own;
 * - `pg-boss`: a slice job in the inventory's Postgres, taken by any `worker` (or `serve` on Postgres);
 * - `qstash`: a signed call back into the deployment, published through Upstash QStash (Vercel);
 * - `none`: nobody; the cron tick, the console or an orchestrator posts the next slice.
 */
export type DispatchEngine = 'in-process' | 'pg-boss' | 'qstash' | 'none';

/** The one seam between "a slice ended with work left" and the engine that runs the next one. */
export interface SliceDispatcher {
  readonly engine: DispatchEngine;
  /**
   * Sees to it that the next slice of a running sync runs without the caller waiting for it: queued durably, or
   * driven in this process. Asking twice for one sync is harmless: engines keep one active slice per sync.
   */
  continueSync(runtime: SyncRuntime, syncId: string): Promise<void>;
  /**
   * The same for a running discover job, on the engines that queue them (QStash); elsewhere a job advances when its
   * client asks (`POST /api/factory/discover` with `action: continue`, as `job run` and the orchestrator do).
   */
  continueJob?(store: JobStore, jobId: string): Promise<void>;
  /** Slices waiting to run or running, or null when the engine cannot tell. */
  depth(): Promise<number | null>;
  /** Stops taking work; slices in flight commit what they read and release their leases first. */
  stop(): Promise<void>;
}

/** The engine of a process nobody asked to drive syncs (a serverless function without QStash). */
export const noDispatcher: SliceDispatcher = {
  engine: 'none',
  continueSync: async () => undefined,
  depth: async () => null,
  stop: async () => undefined,
};
