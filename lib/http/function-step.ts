import type { AdvanceOptions } from '../inventory/sync-driver.js';
import { deadlineSignal } from '../utils/deadline-signal.js';

/**
 * A sync step run inside a function that has a maxDuration (a queued slice, a cron tick's slice): it reads for
 * `budgetMs`, then applies the shards it read until twice that from its start. The shards left wait for the next
 * step, which the caller publishes as it ends, instead of the function being cut off mid-apply (its slice number
 * then taken, so the sync would wait for the cron's re-drive).
 */
export function functionStep(budgetMs: number, signal: AbortSignal, workerId: string): AdvanceOptions {
  return { budgetMs, signal, applySignal: deadlineSignal(signal, 2 * budgetMs), workerId };
}
