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

/**
 * A sync step a caller waits for (`POST .../sync` and `POST .../syncs/{id}`, with or without `budgetMs`): its budget is
 * a deadline. It claims new sitemaps until 1.2 s before it, cuts the reads in flight 0.8 s before it (what they read is
 * committed and their sitemaps continue in the next step), and applies shards until 0.5 s before it, leaving the rest
 * to the next step; short budgets keep the same proportions. So the answer comes within the budget whatever the site
 * does (a site dripping its sitemaps over 20 s held a 2 s step for 21.9 s), and the sync goes on in the background.
 */
export function deadlineStep(budgetMs: number, signal: AbortSignal): AdvanceOptions {
  return {
    budgetMs: Math.max(1, budgetMs - 1_200, Math.floor(budgetMs * 0.4)),
    signal: deadlineSignal(signal, Math.max(1, budgetMs - 800, Math.floor(budgetMs * 0.6))),
    applySignal: deadlineSignal(signal, Math.max(1, budgetMs - 500, Math.floor(budgetMs * 0.75))),
  };
}
