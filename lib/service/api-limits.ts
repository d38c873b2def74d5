/** Vercel `maxDuration` of each function, in seconds; vercel.json must say the same (a test checks). */
// health: its probes time out after 5 s each (lib/service/health.ts), so 10 s leaves room for a cold start.
// cron: the tick starts due syncs in seconds, then re-drives stalled syncs one slice each within CRON_SLICE_BUDGET_MS.
// slice: one queued slice of a sync, as a sites call runs it; slice-failed: a failure callback ends a sync in one statement.
export const MAX_DURATION_SECONDS = { estimate: 30, discover: 300, sites: 300, health: 10, cron: 300, slice: 300, 'slice-failed': 30 } as const;

/** Kept back from a discover call's maxDuration: the slice's last commit, the response, and cold-start slack. */
export const DISCOVER_SAFETY_MARGIN_MS = 15_000;

/** The hardest limit of a discover slice: reads in flight may run until the function's maxDuration minus the margin. */
export const SLICE_HARD_LIMIT_MS = MAX_DURATION_SECONDS.discover * 1000 - DISCOVER_SAFETY_MARGIN_MS;

/**
 * A slice's default budget, after which it claims no new sitemap: the hard limit less one sitemap's default
 * read time (30 s) and slack, so a sitemap claimed just before the budget still finishes inside the function.
 */
export const DEFAULT_SLICE_BUDGET_MS = SLICE_HARD_LIMIT_MS - 45_000;

/** Budget of the estimate probe: the wizard wants an answer in about 2 s. */
export const ESTIMATE_BUDGET_MS = 2_000;

/** A sync step's default slice: half the function's time, the other half is left for applying the shards it wrote. */
export const DEFAULT_SYNC_SLICE_BUDGET_MS = Math.floor(DEFAULT_SLICE_BUDGET_MS / 2);

/**
 * The budget of a sync start's first slice when the caller gives none: a deadline like every caller's budget
 * (lib/service/function-step.ts `deadlineStep`), so the 201 comes within about 2 s; `serve` or the console goes on.
 */
export const START_SLICE_BUDGET_MS = 2_000;

/**
 * A cron tick's slice of each sync it drives, and how long after the tick's start it may still begin one: the last slice
 * begins by 60 s, claims nothing after 120 s, stops applying at 180 s (lib/service/function-step.ts), and a sitemap being
 * read then (30 s at most) and the shard being applied still end well inside the cron function's 300 s.
 */
export const CRON_SLICE_BUDGET_MS = 60_000;
