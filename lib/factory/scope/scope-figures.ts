/**
 * The figures of a scope estimate, from what the probe read: the URL range, the point estimate, the number of
 * sub-sitemaps and the expected duration. Pure arithmetic; the rules are stated at the top of scope-estimator.ts.
 */
import type { WalkOptions } from '../../core/limits.js';
import { isIndexCount, type SitemapCount } from './scope-counter.js';

/** Geometric middle of [1,000, 50,000]: the guess for an unsampled sitemap that is at most ~7x off either way. */
export const ASSUMED_URLS_PER_SITEMAP = 7_071;
/**
 * The seed's floor per sub-sitemap (urlEstimateRange = [children x 1,000, children x 50,000]): used for the range's
 * floor only when the sampled children average at least this many URLs counted, so the evidence supports it.
 */
export const SEED_URLS_PER_CHILD = 1_000;
/** Seconds per sub-sitemap when no sample was measured (DESIGN contract: subSitemapCount / 8 x 1.5 s). */
export const DEFAULT_SECONDS_PER_SITEMAP = 1.5;
/** Seconds for a flat urlset whose read time could not be measured (DESIGN contract). */
export const DEFAULT_URLSET_SECONDS = 5;

/** The most URLs a sitemap can make the walk emit: the entry cap times the URLs per entry seen (at least one). */
export function urlCeiling(count: SitemapCount, limits: WalkOptions): number {
  const perEntry = count.entries === 0 ? 1 : Math.max(1, count.urls / count.entries);
  return Math.max(count.urls, Math.round(limits.maxUrlsPerSitemap * perEntry));
}

/** A urlset's URLs, scaled up when it was cut short; null when that cannot be done. */
export function pointUrls(count: SitemapCount, limits: WalkOptions): number | null {
  return count.scale === null ? null : Math.min(urlCeiling(count, limits), Math.round(count.urls * count.scale));
}

/** An index's children, scaled up when it was cut short; null when that cannot be done. */
export function pointChildren(count: SitemapCount, limits: WalkOptions): number | null {
  const ceiling = Math.max(count.children, limits.maxChildrenPerIndex);
  return count.scale === null ? null : Math.min(ceiling, Math.round(count.children * count.scale));
}

/** A sampled sitemap's worth: URLs, sitemaps the walk fetches for it, and the most it could hold. */
export interface SampleValue {
  urls: number;
  sitemaps: number;
  ceiling: number;
  /** URLs actually counted (the range's floor takes only these). */
  counted: number;
  /** A urlset read whole: `counted` is all it holds. */
  exact: boolean;
}

/** A top sitemap as the probe found it; `count` null when it could not be read. */
export interface TopRead {
  url: string;
  count: SitemapCount | null;
  /** Not read for lack of time (deadline, hang, stall before the body): unknown, so the range's ceiling makes room for it. */
  unread: boolean;
}

/** The size figures of an estimate. */
export interface ScopeFigures {
  subSitemapCount: number;
  urlEstimateRange: [number, number];
  urlEstimate: number | null;
  sampledChildren: number;
  expectedDuration: number;
  /** Which rule gave the range's floor, for the warnings; null when there are no sub-sitemaps. */
  floorRule: string | null;
}

/** A figure known as a floor, a point (null when unknown) and a ceiling. */
interface Bounded {
  low: number;
  point: number | null;
  high: number;
}

const addBounded = (a: Bounded, b: Bounded): Bounded => ({
  low: a.low + b.low,
  point: a.point === null || b.point === null ? null : a.point + b.point,
  high: a.high + b.high,
});

const ZERO: Bounded = { low: 0, point: 0, high: 0 };
const UNKNOWN: Bounded = { low: 0, point: null, high: 0 };

/**
 * URLs of the top urlsets. A top refused for good (4xx, not a sitemap) gives the walk nothing either; one not read
 * in time is unknown: [0, per-file cap]. A top that stalled before its root element (format unknown) is counted
 * as what was read up to that cap, like a cut urlset.
 */
function topUrls(tops: TopRead[], limits: WalkOptions): Bounded {
  return tops.reduce<Bounded>((sum, { count, unread }) => {
    if (count === null) return addBounded(sum, unread ? { low: 0, point: null, high: limits.maxUrlsPerSitemap } : UNKNOWN);
    if (isIndexCount(count)) return sum;
    const high = count.complete ? count.urls : urlCeiling(count, limits);
    return addBounded(sum, { low: count.urls, point: pointUrls(count, limits), high });
  }, ZERO);
}

/** Sub-sitemaps: children of the top indexes plus the top sitemaps not read. */
function subSitemaps(tops: TopRead[], unreadTops: number, limits: WalkOptions): Bounded {
  const unread = { low: unreadTops, point: unreadTops, high: unreadTops };
  return tops.reduce<Bounded>((sum, { count }) => {
    if (count === null || !isIndexCount(count)) return sum;
    const high = count.complete ? count.children : Math.max(count.children, limits.maxChildrenPerIndex);
    return addBounded(sum, { low: count.children, point: pointChildren(count, limits), high });
  }, unread);
}

/** Seconds the walk spends on the top urlsets: their measured (scaled) read time, else the default. */
function topUrlsetSeconds(tops: TopRead[]): number {
  const urlsets = tops.flatMap(({ count }) => (count !== null && !isIndexCount(count) ? [count] : []));
  return urlsets.reduce((sum, count) => sum + (count.scale === null ? DEFAULT_URLSET_SECONDS : (count.ms * count.scale) / 1000), 0);
}

const mean = (values: number[]): number => values.reduce((sum, value) => sum + value, 0) / values.length;

/** What the sampled children say: URLs counted in them (the floor), the per-child ceiling, mean URLs and sitemaps. */
function perChild(samples: Array<SampleValue | null>, limits: WalkOptions) {
  const sampled = samples.flatMap((value) => (value === null ? [] : [value]));
  return {
    sampled: sampled.length,
    counted: sampled.reduce((sum, value) => sum + value.counted, 0),
    countedMean: sampled.length > 0 ? mean(sampled.map((value) => value.counted)) : null,
    high: Math.max(limits.maxUrlsPerSitemap, ...sampled.map((value) => value.ceiling)),
    urls: sampled.length > 0 ? mean(sampled.map((value) => value.urls)) : null,
    sitemaps: sampled.length > 0 ? mean(sampled.map((value) => value.sitemaps)) : 1,
  };
}

/**
 * The children's part of the range's floor, and which rule gave it (said in the estimate's warnings): the seed's
 * `children x 1,000` when the sampled children average at least that many URLs counted, else only what was counted.
 */
function childFloor(known: number, child: ReturnType<typeof perChild>): { urls: number; rule: string | null } {
  if (known === 0) return { urls: child.counted, rule: null };
  const per = SEED_URLS_PER_CHILD.toLocaleString('en');
  if (child.countedMean !== null && child.countedMean >= SEED_URLS_PER_CHILD) {
    const average = Math.round(child.countedMean).toLocaleString('en');
    const rule = `range floor: ${known} sub-sitemaps x ${per} URLs (the seed's rule), as the ${child.sampled} sampled average ${average} URLs`;
    return { urls: Math.max(child.counted, known * SEED_URLS_PER_CHILD), rule };
  }
  const why =
    child.countedMean === null ? 'no sub-sitemap was sampled' : `the sampled average ${Math.round(child.countedMean).toLocaleString('en')} URLs, under ${per}`;
  return { urls: child.counted, rule: `range floor: the ${child.counted.toLocaleString('en')} URLs counted, not sub-sitemaps x ${per} (${why})` };
}

/** What the probe read, as the figures need it. */
export interface ScopeReading {
  tops: TopRead[];
  unreadTops: number;
  samples: Array<SampleValue | null>;
  leafMs: number[];
  /** The site refused like a WAF does (403, a challenge): a refused top may hold URLs a browser would get. */
  walled: boolean;
}

/** Range, point estimate and duration from what the probe read (the rules at the top of scope-estimator.ts). */
export function scopeFigures(reading: ScopeReading, limits: WalkOptions): ScopeFigures {
  const direct = topUrls(reading.tops, limits);
  const children = subSitemaps(reading.tops, reading.unreadTops, limits);
  const child = perChild(reading.samples, limits);
  const count = children.point ?? children.low;
  const fromChildren = children.point === 0 ? 0 : children.point === null || child.urls === null ? null : children.point * child.urls;
  const floor = childFloor(children.low, child);
  const secondsPerSitemap = reading.leafMs.length > 0 ? mean(reading.leafMs) / 1000 : DEFAULT_SECONDS_PER_SITEMAP;
  const seconds = topUrlsetSeconds(reading.tops) + ((count * child.sitemaps) / limits.concurrency) * secondsPerSitemap;
  // Every child sampled, each a urlset read whole: what they hold is counted, not estimated.
  const exactChildren =
    children.high > 0 && children.low === children.high && child.sampled === children.high && reading.samples.every((value) => value?.exact === true);
  const range: [number, number] = exactChildren
    ? [direct.low + child.counted, direct.high + child.counted]
    : // The ceiling is the cap of every child; the floor assumes of the others only what the samples support.
      [direct.low + floor.urls, direct.high + children.high * child.high];
  const point = direct.point === null || fromChildren === null ? null : direct.point + Math.round(exactChildren ? child.counted : fromChildren);
  return {
    subSitemapCount: count,
    urlEstimateRange: range,
    // A range of one value is the point, unless a top refused behind a WAF leaves it unknown.
    urlEstimate: range[0] === range[1] && !(reading.walled && reading.tops.some((top) => top.count === null)) ? range[0] : point,
    sampledChildren: child.sampled,
    expectedDuration: Math.round(seconds * 100) / 100,
    floorRule: exactChildren
      ? `every sub-sitemap was read whole: the ${child.counted.toLocaleString('en')} URLs they list are counted, not estimated`
      : floor.rule,
  };
}

/** The figures of a site whose sitemaps could not be read. */
export const EMPTY_FIGURES: ScopeFigures = {
  subSitemapCount: 0,
  urlEstimateRange: [0, 0],
  urlEstimate: null,
  sampledChildren: 0,
  expectedDuration: 0,
  floorRule: null,
};
