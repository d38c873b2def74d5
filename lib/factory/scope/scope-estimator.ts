/**
 * Scope pre-flight: about how many URLs a site's sitemaps hold, in which languages, and which transport
 * will get through, from a probe of about `budgetMs` (2 s) that reads robots.txt, the top sitemaps and a
 * few sampled children. It never walks the tree: the request count is bounded whatever the site's size.
 *
 * THE RULES (what the numbers mean)
 * - URLs are counted as the walk emits them: per sitemap, the distinct URLs among its `<loc>`s and their
 *   hreflang alternates (UrlExpander, the walker's own rule), over at most maxUrlsPerSitemap entries.
 *   So hreflang multiplies the count by the number of locales exactly when the alternates are not listed
 *   as locs themselves: 100 locs with 3 alternates each to pages the sitemap does not list -> 400;
 *   100 locs that are each other's alternates -> 100.
 * - Flat urlset read to the end: urlEstimateRange = [n, n], urlEstimate = n. Cut by the budget: the range is
 *   [n counted, the URL cap x URLs-per-entry seen], and urlEstimate is n scaled up by the share of the file
 *   read (scope-counter.ts: only with a declared Content-Length, else null).
 * - Index: its `<sitemap>` children are `subSitemapCount` (at most maxChildrenPerIndex, and not counting a
 *   child that is one of the top sitemaps again, which the walk skips as visited; an index cut by the budget
 *   is scaled up like a urlset). Range = [URLs counted (top urlsets and sampled children; see Range below for the
 *   children x 1,000 floor), top urlset ceilings +
 *   children x 50,000 (maxUrlsPerSitemap)]; a sample above the cap (nested index, hreflang) raises the per-child
 *   ceiling to it, so the point estimate always lies inside the range.
 * - Sampling: up to 3 children, spread over the index (first, middle, last of an evenly strided sample of
 *   its children), read at once with what is left of the budget. A child read to the end, or cut and scaled
 *   up as above, is sampled; a cut child that cannot be scaled counts as unsampled (named in a warning).
 *   A sampled child that is itself an index with g children is worth g x (its middle child, sampled the
 *   same way down to MAX_NESTED_SAMPLE_LEVELS deeper while the budget lasts, else ASSUMED_URLS_PER_SITEMAP =
 *   7,071, the geometric middle of [1,000, 50,000]: at most ~7x off either way).
 *   urlEstimate = top urlsets + children x mean(sampled children), rounded; null when children exist but
 *   none could be sampled, or when a top sitemap could not be read or measured.
 * - Top sitemaps: the first MAX_TOP_SITEMAPS that discovery finds are read at once; further ones count as
 *   sub-sitemaps of unknown size, like index children, and may be sampled.
 * - languagesDetected: LanguageDetector over every entry read (loc, hreflang tags and hrefs) and the paths
 *   of the child sitemap URLs of the indexes read (`/fr/sitemap.xml` is evidence of French pages).
 * - expectedDuration (s): a top urlset takes what its read took in the probe (scaled up when cut, 5 s when
 *   that is unknown), plus sub-sitemaps x sitemaps-per-child / concurrency x seconds per sitemap: 1.5 s, or
 *   the mean (scaled) read time of the sampled urlsets, since the walk makes the same requests. Without
 *   samples an index gives exactly the contract's subSitemapCount / 8 x 1.5 s.
 * - transport: `playwright` when robots.txt or a top sitemap answers 403 or times out (WAF signal), or when
 *   robots.txt answers 5xx / 429 (below); else `fetch`. An estimate is returned either way, with warnings.
 * - robots.txt 5xx, 429 or timeout: RFC 9309 says assume disallow-all, so no sitemap is read; the estimate
 *   comes back empty ([0, 0], urlEstimate null) with transport `playwright`, since these are what WAFs and
 *   bot challenges answer. A robots.txt that cannot be reached at all (refused, DNS) is not a guarded site
 *   but a down one: `robots_unreachable` is thrown, as are `invalid_url`, `blocked_ssrf` and `bad_request`.
 * - requests: discovery's count (robots.txt plus one per fallback path tried) plus every sitemap GET started.
 * - Time: ONE deadline (`deadlineMs`, default 2 s; `budgetMs` is the same option under its old name) for every
 *   probe: robots.txt, the fallback paths, the top sitemaps and the samples all share it (a signal that fires at
 *   the deadline, and no request given more than what is left of it), so the estimate answers within the
 *   deadline plus a little bookkeeping whatever the server does (hangs, slow drips). What it could not probe in
 *   time is named in a warning.
 * - Range: its ceiling adds the per-file cap (maxUrlsPerSitemap, times the URLs per entry seen) for every sitemap
 *   not read to the end: unsampled children, and top sitemaps that stalled or ran out of time, whatever little was
 *   read of them. Its floor is what was counted (top urlsets and sampled children) plus, for the sub-sitemaps, the
 *   seed's rule `children x 1,000` (SEED_URLS_PER_CHILD) when the sampled children average at least 1,000 URLs
 *   counted; otherwise (small or no samples) nothing is assumed of a sitemap not read, so the range contains what
 *   the walk would emit. A warning says which floor rule applied.
 */
import { locDropsText } from '../../core/loc-drops.js';
import { z } from 'zod';
import { discover, parseRootUrl, type Discovery } from '../discovery/discovery.js';
import { FactoryError, RequestError, isFactoryError } from '../../core/errors.js';
import { resolveWalkOptions, type WalkOptions, type WalkOptionsInput } from '../../core/limits.js';
import { LanguageDetector } from './locale.js';
import { SampleScope } from './sample-scope.js';
import { countSitemap, isIndexCount, spreadPick, type CountContext, type SitemapCount } from './scope-counter.js';
import {
  ASSUMED_URLS_PER_SITEMAP,
  EMPTY_FIGURES,
  pointChildren,
  pointUrls,
  scopeFigures,
  urlCeiling,
  type SampleValue,
  type ScopeFigures,
  type TopRead,
} from './scope-figures.js';
import { ScopeEstimateSchema, type ScopeEstimate } from '../../core/types.js';
import { tryIdentityKey } from '../url/url-identity.js';
import { createLogger } from '../../utils/logger.js';

export { ASSUMED_URLS_PER_SITEMAP, DEFAULT_SECONDS_PER_SITEMAP, DEFAULT_URLSET_SECONDS } from './scope-figures.js';

const log = createLogger('factory:scope-estimator');

/** Probe budget when the caller gives none: the wizard waits about this long. */
export const DEFAULT_ESTIMATE_BUDGET_MS = 2_000;
/** Top sitemaps read at once; more are counted as sub-sitemaps of unknown size. */
export const MAX_TOP_SITEMAPS = 4;
/** Children of the top indexes read to sample their size. */
export const MAX_SAMPLED_CHILDREN = 3;
/** Levels below a sampled child followed (one request each) when the child is itself an index. */
export const MAX_NESTED_SAMPLE_LEVELS = 2;
/** Most sitemap GETs one probe makes: the top sitemaps plus a chain of nested samples per sampled child. */
export const MAX_SITEMAP_REQUESTS = MAX_TOP_SITEMAPS + MAX_SAMPLED_CHILDREN * (1 + MAX_NESTED_SAMPLE_LEVELS);
// A sample started with less time than this would only cost a request and be cut at once.
const MIN_SAMPLE_MS = 50;
// robots.txt's own timeout ends this long before the deadline, so its hang is told apart from the fallback chain's.
const ROBOTS_HEADROOM_MS = 50;
// Warnings kept; a robots.txt with thousands of refused Sitemap lines must not flood the answer.
const MAX_WARNINGS = 20;

/** Options of estimateScope: the walk limits, the deadline (`budgetMs` is its former name, still accepted) and cancellation. */
export type EstimateOptions = WalkOptionsInput & { deadlineMs?: number; budgetMs?: number; signal?: AbortSignal };

const BudgetSchema = z.number().int().positive().max(600_000).default(DEFAULT_ESTIMATE_BUDGET_MS);

/** The one deadline of a probe: its clock, and a signal that fires when it is reached (or the caller cancels). */
class ProbeClock {
  private readonly started = performance.now();
  private readonly expiry = new AbortController();
  private readonly timer: NodeJS.Timeout;
  /** Fires at the deadline or when the caller cancels: every request of the probe listens to it. */
  readonly signal: AbortSignal;

  constructor(
    readonly budgetMs: number,
    callerSignal?: AbortSignal,
  ) {
    this.timer = setTimeout(() => this.expiry.abort(new FactoryError('timeout', `estimate deadline of ${budgetMs} ms reached`)), budgetMs);
    this.timer.unref();
    this.signal = callerSignal ? AbortSignal.any([callerSignal, this.expiry.signal]) : this.expiry.signal;
  }

  elapsedMs(): number {
    return performance.now() - this.started;
  }

  leftMs(): number {
    return Math.max(0, this.budgetMs - this.elapsedMs());
  }

  /** True once the deadline fired. */
  expired(): boolean {
    return this.expiry.signal.aborted;
  }

  /** Stops the timer once the probe is over. */
  stop(): void {
    clearTimeout(this.timer);
  }
}

/** One probe's running state: what it counted, what it warns about, and its WAF signals. */
class ScopeProbe {
  readonly detector = new LanguageDetector();
  readonly choices = new SampleScope();
  readonly warnings: string[] = [];
  readonly wafSignals: string[] = [];
  /** Read times (ms, scaled up when cut) of the urlsets sampled: the walk's time per sitemap. */
  readonly leafMs: number[] = [];
  requests = 0;
  private readonly context: CountContext;

  constructor(
    readonly limits: WalkOptions,
    readonly clock: ProbeClock,
    private readonly signal?: AbortSignal,
  ) {
    this.context = { limits, detector: this.detector, sample: this.choices, skipKeys: new Set(), signal: clock.signal };
  }

  /**
   * Discovery within the deadline; null when robots.txt refused in a WAF-like way or the deadline ran out first.
   * robots.txt's own timeout ends a little before the deadline, so a hanging robots.txt reads as the WAF signal
   * it is; the deadline firing later means the fallback paths were still being probed.
   */
  async discover(rootUrl: string): Promise<Discovery | null> {
    const robotsTimeoutMs = Math.max(1, Math.min(this.limits.robotsTimeoutMs, this.clock.budgetMs - ROBOTS_HEADROOM_MS));
    const options = { ...this.limits, robotsTimeoutMs };
    try {
      const found = await discover(rootUrl, options, this.clock.signal);
      this.throwIfCancelled();
      this.requests += found.requests;
      this.noteDiscovery(found);
      return found;
    } catch (error) {
      this.throwIfCancelled();
      this.requests += 1;
      if (this.clock.expired() && !isRobotsTimeout(error)) {
        this.warn(`the well-known sitemap paths could not all be probed within the ${this.clock.budgetMs} ms deadline: no sitemap found in time`);
        return null;
      }
      this.noteRobotsRefusal(error, robotsTimeoutMs);
      return null;
    }
  }

  /** Reads the first MAX_TOP_SITEMAPS at once; the rest are left for the caller to count as unknown. */
  async readTops(urls: string[]): Promise<TopRead[]> {
    for (const url of urls) this.context.skipKeys.add(tryIdentityKey(url) ?? url);
    const tops = await Promise.all(urls.slice(0, MAX_TOP_SITEMAPS).map((url) => this.readTop(url)));
    this.throwIfCancelled();
    return tops;
  }

  /** Samples up to MAX_SAMPLED_CHILDREN of `picks` at once; null for a child that could not be measured. */
  async sample(picks: string[]): Promise<Array<SampleValue | null>> {
    const values = await Promise.all(spreadPick(picks, MAX_SAMPLED_CHILDREN).map((url) => this.valueOf(url, 0)));
    this.throwIfCancelled();
    return values;
  }

  /** Adds a warning, keeping at most MAX_WARNINGS. */
  warn(message: string): void {
    if (this.warnings.length < MAX_WARNINGS) this.warnings.push(message);
  }

  private throwIfCancelled(): void {
    if (this.signal?.aborted === true) throw this.signal.reason;
  }

  private async readTop(url: string): Promise<TopRead> {
    if (this.clock.leftMs() < MIN_SAMPLE_MS) {
      this.warn(`${url}: not read, the ${this.clock.budgetMs} ms deadline was spent before it`);
      return { url, count: null, unread: true };
    }
    try {
      this.requests += 1;
      const count = await countSitemap(url, this.clock.leftMs(), this.context);
      if (!count.complete) this.warnCut(count, 'counts are lower bounds');
      this.warnDrops(count);
      if (count.limited) this.warn(`${url}: over the ${isIndexCount(count) ? 'children' : 'URL'} limit; the walk keeps the first ones too`);
      return { url, count, unread: false };
    } catch (error) {
      this.throwIfCancelled();
      this.noteTopFailure(url, error);
      // Out of time (a hang, a stall before the body): unknown, not empty; a refusal the walk would get too is empty.
      return { url, count: null, unread: isFactoryError(error) && error.kind === 'timeout' };
    }
  }

  // A child (level 0) or a child's middle child: its URLs if a urlset, else its children x its own middle child.
  private async valueOf(url: string | undefined, level: number): Promise<SampleValue | null> {
    const count = await this.trySample(url);
    if (count === null) return null;
    if (!isIndexCount(count)) return this.leafValue(count);
    const children = pointChildren(count, this.limits);
    if (children === null) return null;
    const deeper = level < MAX_NESTED_SAMPLE_LEVELS ? await this.valueOf(spreadPick(count.picks, 1)[0], level + 1) : null;
    const ceiling = Math.max(ASSUMED_URLS_PER_SITEMAP, this.limits.maxUrlsPerSitemap);
    const per = deeper ?? { urls: ASSUMED_URLS_PER_SITEMAP, sitemaps: 1, ceiling, counted: 0, exact: false };
    return { urls: children * per.urls, sitemaps: 1 + children * per.sitemaps, ceiling: children * per.ceiling, counted: per.counted, exact: false };
  }

  private leafValue(count: SitemapCount): SampleValue | null {
    const urls = pointUrls(count, this.limits);
    if (urls === null || count.scale === null) return null;
    this.leafMs.push(count.ms * count.scale);
    const ceiling = Math.max(urlCeiling(count, this.limits), this.limits.maxUrlsPerSitemap);
    return { urls, sitemaps: 1, ceiling, counted: count.urls, exact: count.complete };
  }

  private async trySample(url: string | undefined): Promise<SitemapCount | null> {
    if (url === undefined || this.clock.leftMs() < MIN_SAMPLE_MS) return null;
    try {
      this.requests += 1;
      const count = await countSitemap(url, this.clock.leftMs(), this.context);
      if (!count.complete) this.warnCut(count, count.scale === null ? 'counted as unsampled' : `scaled up x${count.scale.toFixed(1)}`);
      this.warnDrops(count);
      return count;
    } catch (error) {
      this.throwIfCancelled();
      this.warn(`${url}: sample failed (${describe(error)}); counted as unsampled`);
      return null;
    }
  }

  // Locs the walk would drop too (relative, malformed, too long...): not in any figure, so said.
  private warnDrops(count: SitemapCount): void {
    const drops = locDropsText(count.drops);
    if (drops !== null) this.warn(`${count.url}: ${drops}, not counted (the walk drops them too)`);
  }

  private warnCut(count: SitemapCount, outcome: string): void {
    const seen = isIndexCount(count) ? `${count.children} children` : `${count.urls} URLs`;
    this.warn(`${count.url}: cut by the ${this.clock.budgetMs} ms deadline after ${seen}; ${outcome}`);
  }

  private noteDiscovery(found: Discovery): void {
    if (found.robots.status === 'missing' && found.robots.httpStatus === 403) {
      this.wafSignal('robots.txt answered 403: a WAF or bot filter is likely; went on with the well-known paths');
    }
    for (const problem of found.problems) this.warn(`${problem.kind} ${problem.url ?? ''}: ${problem.message}`);
    if (found.source === 'none') this.warn('no sitemap in robots.txt, on the home page nor at the well-known paths');
  }

  // robots.txt 5xx / 429 / timeout: RFC 9309 disallow-all, answered the way WAFs answer; anything else is fatal.
  private noteRobotsRefusal(error: unknown, timeoutMs: number): void {
    if (!isFactoryError(error) || error.kind !== 'robots_unreachable') throw error;
    const status = error.context.status;
    const cause: unknown = error.cause;
    if (status !== undefined) {
      this.wafSignal(`robots.txt answered ${status}: RFC 9309 means disallow-all, so no sitemap was read`);
    } else if (isFactoryError(cause) && cause.kind === 'timeout') {
      this.wafSignal(`robots.txt did not answer within ${timeoutMs} ms: RFC 9309 means disallow-all, so no sitemap was read`);
    } else {
      throw error;
    }
  }

  private noteTopFailure(url: string, error: unknown): void {
    const kind = isFactoryError(error) ? error.kind : null;
    const status = isFactoryError(error) ? error.context.status : undefined;
    if (kind === 'timeout') this.wafSignal(`${url} did not answer within the budget: a WAF or tarpit is likely`);
    else if (kind === 'http_status' && status === 403) this.wafSignal(`${url} answered 403: a WAF or bot filter is likely`);
    else this.warn(`${url}: could not be read (${describe(error)})`);
  }

  private wafSignal(message: string): void {
    this.wafSignals.push(message);
    log.warn({ event: 'estimate_waf_signal', reason: message }, 'WAF signal: browser transport advised');
  }
}

/** robots.txt itself did not answer in time (its own timeout), as opposed to the deadline firing later. */
function isRobotsTimeout(error: unknown): boolean {
  return isFactoryError(error) && error.kind === 'robots_unreachable' && isFactoryError(error.cause) && error.cause.kind === 'timeout';
}

function describe(error: unknown): string {
  if (isFactoryError(error)) return `${error.kind}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}

/** Reads the top sitemaps and samples their children: the figures of a site whose sitemaps were found. */
async function measure(probe: ScopeProbe, sitemaps: string[]): Promise<ScopeFigures> {
  if (sitemaps.length === 0) return { ...EMPTY_FIGURES, urlEstimate: 0 };
  const tops = await probe.readTops(sitemaps);
  const unread = sitemaps.slice(MAX_TOP_SITEMAPS);
  if (unread.length > 0) probe.warn(`${sitemaps.length} top sitemaps: ${unread.length} not read, counted as sub-sitemaps of unknown size`);
  const picks = tops.flatMap(({ count }) => (count !== null && isIndexCount(count) ? count.picks : []));
  const samples = await probe.sample([...picks, ...unread]);
  const walled = probe.wafSignals.length > 0;
  const figures = scopeFigures({ tops, unreadTops: unread.length, samples, leafMs: probe.leafMs, walled }, probe.limits);
  if (figures.subSitemapCount > 0 && figures.sampledChildren === 0) probe.warn('no sub-sitemap could be sampled within the budget: no point estimate');
  if (figures.floorRule !== null) probe.warn(figures.floorRule);
  return figures;
}

/** Splits the caller's options into a validated deadline (the lower of deadlineMs and budgetMs), the signal and walk limits. */
function splitOptions(options: EstimateOptions): { budgetMs: number; signal?: AbortSignal; limits: WalkOptions } {
  const { deadlineMs, budgetMs, signal, ...limits } = options;
  const given = [deadlineMs, budgetMs].filter((value) => value !== undefined);
  const budget = BudgetSchema.safeParse(given.length === 0 ? undefined : Math.min(...given));
  if (!budget.success) {
    throw new RequestError('bad_request', `deadlineMs must be a whole number of milliseconds in [1, 600000], not ${given.map(String).join(', ')}`);
  }
  return { budgetMs: budget.data, limits: resolveWalkOptions(limits), ...(signal ? { signal } : {}) };
}

/** Builds the validated answer from the probe's state and the figures. */
function toEstimate(
  probe: ScopeProbe,
  base: Pick<ScopeEstimate, 'rootUrl' | 'sitemaps' | 'sitemapSource'>,
  { floorRule: _said, ...figures }: ScopeFigures,
): ScopeEstimate {
  return ScopeEstimateSchema.parse({
    ...base,
    ...figures,
    languagesDetected: probe.detector.languagesDetected(),
    ...probe.choices.finish(),
    transport: probe.wafSignals.length > 0 ? 'playwright' : 'fetch',
    requests: probe.requests,
    probeMs: Math.round(probe.clock.elapsedMs()),
    warnings: [...probe.wafSignals, ...probe.warnings],
  });
}

/**
 * The wizard's pre-flight: sitemap count, URL range and point estimate, languages, expected walk time and
 * transport, from a bounded probe of about `budgetMs` (rules at the top of this file). Throws `invalid_url`,
 * `blocked_ssrf`, `bad_request`, or `robots_unreachable` when the site cannot be reached at all.
 */
export async function estimateScope(rootUrl: string, options: EstimateOptions = {}): Promise<ScopeEstimate> {
  const { budgetMs, signal, limits } = splitOptions(options);
  const clock = new ProbeClock(budgetMs, signal);
  const probe = new ScopeProbe(limits, clock, signal);
  let estimate: ScopeEstimate;
  try {
    const found = await probe.discover(rootUrl);
    const base = { rootUrl: found?.rootUrl ?? parseRootUrl(rootUrl).href, sitemaps: found?.sitemaps ?? [], sitemapSource: found?.source ?? null };
    const figures = found === null ? EMPTY_FIGURES : await measure(probe, found.sitemaps);
    estimate = toEstimate(probe, base, figures);
  } finally {
    clock.stop();
  }
  const { subSitemapCount, urlEstimate, sampledChildren, transport, requests, probeMs } = estimate;
  log.info(
    { event: 'scope_estimated', url: estimate.rootUrl, budgetMs, subSitemapCount, urlEstimate, sampledChildren, transport, requests, probeMs },
    'scope estimated',
  );
  return estimate;
}
