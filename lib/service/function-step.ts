import type { AdvanceOptions } from '../inventory/sync-driver.js';
import { deadlineSignal } from '../utils/deadline-signal.js';

/** What a step of a sync or a discover job is given to end by a deadline: its claim budget and its two cut-offs. */
export type DeadlineStep = Required<Pick<AdvanceOptions, 'budgetMs' | 'signal' | 'applySignal'>>;

/**
 * Every step a caller or a function runs ends by its deadline, whatever the site does: the sync start and step
 * (`budgetMs` of `POST .../sync` and `POST .../syncs/{id}`), a discover call, a queued slice and a cron tick's slice
 * (a site dripping its sitemaps over 20 s held a 2 s step for 21.9 s). Reading may use the first `readShare` of the
 * time (all of it for a caller's step; half for a slice, so the shards it read are applied in the same function): it
 * claims new sitemaps until 1.2 s before the end of that share and cuts the reads in flight 0.8 s before it (what they
 * read is committed, their sitemaps continue in the next step). Shards are applied until 0.5 s before the deadline,
 * the rest left to the next step. Short deadlines keep the same proportions.
 */
export function deadlineStep(deadlineMs: number, signal: AbortSignal, readShare = 1): DeadlineStep {
  const readMs = Math.max(1, Math.floor(deadlineMs * readShare));
  return {
    budgetMs: Math.max(1, readMs - 1_200, Math.floor(readMs * 0.4)),
    signal: deadlineSignal(signal, Math.max(1, readMs - 800, Math.floor(readMs * 0.6))),
    applySignal: deadlineSignal(signal, Math.max(1, deadlineMs - 500, Math.floor(deadlineMs * 0.75))),
  };
}

/** A queued or cron slice's step: it reads for `readMs`, then applies what it read until twice that, its deadline. */
export function sliceStep(readMs: number, signal: AbortSignal): DeadlineStep {
  return deadlineStep(2 * readMs, signal, 0.5);
}
