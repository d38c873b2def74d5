/** Vercel `maxDuration` of each function, in seconds; vercel.json must say the same (a test checks). */
export const MAX_DURATION_SECONDS = { estimate: 30, discover: 300, sites: 300 } as const;

/** Kept back from a discover call's maxDuration: the slice's last commit, the response, and cold-start slack. */
export const DISCOVER_SAFETY_MARGIN_MS = 15_000;

/** A slice's default budget: the function's maxDuration minus the safety margin. */
export const DEFAULT_SLICE_BUDGET_MS = MAX_DURATION_SECONDS.discover * 1000 - DISCOVER_SAFETY_MARGIN_MS;

/** Budget of the estimate probe: the wizard wants an answer in about 2 s. */
export const ESTIMATE_BUDGET_MS = 2_000;

/** A sync step's default slice: half the function's time, the other half is left for applying the shards it wrote. */
export const DEFAULT_SYNC_SLICE_BUDGET_MS = Math.floor(DEFAULT_SLICE_BUDGET_MS / 2);
