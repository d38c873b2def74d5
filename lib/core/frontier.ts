import type { ReportedError } from './types.js';

/**
 * The frontier: which sitemaps are visited and queued, how far the URL limit lets a run go, how its roots ended and
 * so how the run ends. Synchronous and in memory: `SitemapWalk` drives one per walk and the memory job store one per
 * job; the Lua scripts (lib/store/scripts/) are the one other copy, kept equal by the store contract suite and the
 * one-engine differential test.
 */

/** What becomes of a child (or root) sitemap offered to the visited set. */
export type QueueDecision = 'queue' | 'seen' | 'over_limit';

/** Each sitemap is read once per walk (by identity key), and at most `maxSitemaps` are ever queued. */
export function queueDecision(key: string, visited: { has(key: string): boolean; readonly size: number }, maxSitemaps: number): QueueDecision {
  if (visited.has(key)) return 'seen';
  return visited.size >= maxSitemaps ? 'over_limit' : 'queue';
}

/** The counts a frontier keeps, as fields of the object it is given (the memory job's counters, the Redis status hash's names). */
export interface FrontierCounts {
  roots: number;
  rootsFailed: number;
  urlsFound: number;
}

/** The limits a frontier enforces: sitemaps ever queued, URLs ever committed (0 or Infinity: no limit). */
export interface FrontierLimits {
  maxSitemaps: number;
  maxUrls: number;
}

/** What a root's failure does to the run: nothing more than a reported error, a counted root failure, or the last root failing. */
export type RootFailureOutcome = 'reported' | 'counted' | 'all_failed';

/**
 * A failed sitemap's place in the run: any child, and a root that yielded something (URLs or children) before it
 * failed, is a reported error (what it yielded is kept); only a root that yielded nothing counts against the run.
 */
export function rootFailure(depth: number, yielded: boolean): 'report' | 'root' {
  return depth === 0 && !yielded ? 'root' : 'report';
}

/** The run fails only once every root failed having yielded nothing (and the fallback, where the policy runs one, did too). */
export function allRootsFailed(counts: Pick<FrontierCounts, 'roots' | 'rootsFailed'>): boolean {
  return counts.roots > 0 && counts.rootsFailed >= counts.roots;
}

/**
 * What every driver records once `maxUrls` stops a run (url null: it is the run's, not a sitemap's). It is the caller's
 * limit reached, not a failure of the site: walks report it as a `limit` event, job and sync statuses as `limitReached`,
 * never among their errors (a job's store keeps it with them, so the removal step knows the run was cut).
 */
export function urlLimitError(maxUrls: number | string): ReportedError {
  return { kind: 'too_many_urls', url: null, message: `maxUrls (${maxUrls}) reached: the run stopped there` };
}

/** Whether a recorded problem is the run's own `maxUrls` reached (urlLimitError), not a sitemap's. */
export function isRunLimit(problem: Pick<ReportedError, 'kind' | 'url'>): boolean {
  return problem.kind === 'too_many_urls' && problem.url === null;
}

/** The one frontier of a walk or a memory job. */
export class Frontier {
  readonly visited = new Set<string>();
  private readonly maxUrls: number;

  constructor(
    private readonly limits: FrontierLimits,
    readonly counts: FrontierCounts,
  ) {
    this.maxUrls = limits.maxUrls > 0 ? limits.maxUrls : Number.POSITIVE_INFINITY;
  }

  /** Offers a sitemap by identity key: queued (it joins the visited set), seen before, or over maxSitemaps. A null key is never deduped. */
  admit(key: string | null): QueueDecision {
    if (key === null) return 'queue';
    const decision = queueDecision(key, this.visited, this.limits.maxSitemaps);
    if (decision === 'queue') this.visited.add(key);
    return decision;
  }

  /** A redirect's target joins the visited set, or is found there already (then the redirecting sitemap is not read). */
  visit(key: string): 'added' | 'seen' {
    if (this.visited.has(key)) return 'seen';
    this.visited.add(key);
    return 'added';
  }

  /** Counts `count` more roots. */
  addRoots(count: number): void {
    this.counts.roots += count;
  }

  /** A sitemap at `depth` failed, having yielded something or not: what that does to the run. */
  failed(depth: number, yielded: boolean): RootFailureOutcome {
    if (rootFailure(depth, yielded) === 'report') return 'reported';
    this.counts.rootsFailed += 1;
    return allRootsFailed(this.counts) ? 'all_failed' : 'counted';
  }

  /** True once every root failed having yielded nothing. */
  get allRootsFailed(): boolean {
    return allRootsFailed(this.counts);
  }

  /** How many of `count` more URLs the URL limit lets in. */
  urlAllowance(count: number): number {
    return Math.max(0, Math.min(count, this.maxUrls - this.counts.urlsFound));
  }

  /** Counts `count` URLs committed; true when that reached the URL limit (the run stops, and says so with `urlLimitError`). */
  addUrls(count: number): boolean {
    this.counts.urlsFound += count;
    return this.counts.urlsFound >= this.maxUrls;
  }

  /** The URL limit, for its report. */
  get urlLimit(): number {
    return this.maxUrls;
  }
}
