/**
 * Groups a stream of page URLs by their first content folder (`/blog/x` -> `/blog/*`), so the
 * classifier works on a few hundred groups instead of millions of URLs.
 *
 * - Root: a URL with no folder before its last segment (`/`, `/about.html`, `/pricing`, also
 *   WordPress-style `/post-slug` without a trailing slash) goes to the group `/`.
 * - A folder is a segment followed by `/`: `/blog` is a page at the root, `/blog/` and `/blog/x`
 *   are in `/blog/*`. Segments are kept as they appear in the URL (percent-encoded, case kept:
 *   paths are case-sensitive), so a prefix can filter the raw URLs downstream.
 * - A leading locale folder (`/en-us/docs/x`, see locale.ts for the rule) is not a content group:
 *   the URL is grouped by the folder after it (`/docs/*`) and the locale is recorded on the group.
 *   A bare ambiguous code (`/it/docs/x`) is held apart until the end of the stream, then resolved
 *   with the site's evidence: `/docs/*` with locale `it` if confirmed, else `/it/*`. The result
 *   does not depend on the order in which URLs arrive.
 * - Groups with fewer than `minGroupSize` URLs are merged into `other`, yielded last; URLs that
 *   are not absolute http(s) URLs go to `other` and are counted and logged once at the end.
 *
 * Memory is bounded by `maxGroups`, never by the number of URLs: each group holds a count, at
 * most 10 samples and at most MAX_DISTINCT_LOCALES locales. When a new prefix arrives and the
 * table is full, groups still smaller than `minGroupSize` are evicted into `other` (they would end
 * there anyway unless they grow). If that frees less than a tenth of the table, the table is
 * saturated: from then on every new prefix goes straight to `other` (counted as `overflowed`,
 * logged once as `group_cap_reached`). So a site with a million distinct first folders yields at
 * most `maxGroups` groups plus `other`; totals always add up to the URLs seen, but a prefix that
 * was evicted and came back counts only its URLs since it came back (its count is a lower bound).
 */
import { z } from 'zod';
import { RequestError } from '../../core/errors.js';
import { LanguageDetector, addBounded, leadingSegments, segmentNamesLocale, type PathSegment } from './locale.js';
import { PathGroupSchema, type PathGroup } from '../../core/types.js';
import { createLogger } from '../../utils/logger.js';

const log = createLogger('factory:path-grouper');

/** Prefix of the group that collects small groups, unparseable URLs and overflow. */
export const OTHER_GROUP = 'other';

/** Prefix of the group of pages that sit at the root of the site (`/`, `/about.html`). */
export const ROOT_GROUP = '/';

/** Options of path grouping, validated once at the boundary. */
export const PathGroupOptionsSchema = z.object({
  /** Distinct groups held at once; bounds memory whatever the site's size. */
  maxGroups: z.number().int().positive().default(10_000),
  /** Smaller groups are merged into `other`: a folder with one or two pages is not a section. */
  minGroupSize: z.number().int().positive().default(3),
  /** Sample URLs kept per group (PathGroupSchema allows at most 10). */
  maxSamples: z.number().int().min(0).max(10).default(10),
});

/** Options of `groupByPathPrefix`; `detector` may carry hreflang evidence in and takes path evidence out. */
export type PathGroupOptions = z.input<typeof PathGroupOptionsSchema> & { detector?: LanguageDetector };

/** What a grouping run saw, for logs and callers that report it. */
export interface PathGroupingSummary {
  urls: number;
  groups: number;
  unparseable: number;
  overflowed: number;
  evicted: number;
}

// Unparseable input is arbitrary text: never keep more than this of it as a sample.
const MAX_SAMPLE_LENGTH = 2_048;
const MAX_LOGGED_EXAMPLES = 3;
// Separator of held-back keys; cannot occur in a URL pathname, so never clashes with a prefix.
const HELD = '\u0000';

/** The running tally of one group: bounded whatever the number of URLs. */
class Bucket {
  count = 0;
  // Made on first use: a flood of one-page folders creates (and evicts) a bucket per folder.
  private samples: string[] | null = null;
  private locales: Set<string> | null = null;

  add(url: string, locale: string | null, maxSamples: number): void {
    this.count += 1;
    this.addSample(url, maxSamples);
    if (locale !== null) this.addLocale(locale);
  }

  // A URL two sitemaps list is one sample, not two.
  addSample(url: string, maxSamples: number): void {
    this.samples ??= [];
    if (this.samples.length < maxSamples && !this.samples.includes(url)) this.samples.push(url);
  }

  addLocale(locale: string): void {
    this.locales ??= new Set();
    addBounded(this.locales, locale);
  }

  absorb(other: Bucket, maxSamples: number): void {
    this.count += other.count;
    for (const url of other.samples ?? []) this.addSample(url, maxSamples);
    for (const locale of other.locales ?? []) this.addLocale(locale);
  }

  toGroup(prefix: string): PathGroup {
    const samples = [...(this.samples ?? [])];
    return PathGroupSchema.parse({ prefix, count: this.count, samples, locales: [...(this.locales ?? [])].sort() });
  }
}

interface Route {
  key: string;
  locale: string | null;
}

function folderKey(segment: PathSegment | undefined): string {
  return segment?.isFolder === true ? `/${segment.name}/*` : ROOT_GROUP;
}

// An ambiguous `/it/docs/x` waits under a key that remembers both readings until the stream ends.
function heldKey(code: string, asLocale: string, asWord: string): string {
  return HELD + [code, asLocale, asWord].join(HELD);
}

function parseHttpUrl(raw: string): URL | null {
  try {
    const url = new URL(raw);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : null;
  } catch {
    return null;
  }
}

function parseOptions(options: PathGroupOptions): z.output<typeof PathGroupOptionsSchema> {
  const { detector: _detector, ...rest } = options;
  const parsed = PathGroupOptionsSchema.safeParse(rest);
  if (!parsed.success) throw new RequestError('bad_request', `invalid grouping options: ${parsed.error.message}`);
  return parsed.data;
}

function byCountThenPrefix(a: [string, Bucket], b: [string, Bucket]): number {
  return b[1].count - a[1].count || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
}

/** Incremental path grouping: `add` URLs in any number of calls, then `finish` once. */
export class PathGrouper {
  private readonly options: z.output<typeof PathGroupOptionsSchema>;
  private readonly detector: LanguageDetector;
  private readonly table = new Map<string, Bucket>();
  private readonly other = new Bucket();
  private readonly counts = { urls: 0, unparseable: 0, overflowed: 0, evicted: 0 };
  private readonly unparseableExamples: string[] = [];
  private saturated = false;
  private result: PathGroup[] | null = null;

  constructor(options: PathGroupOptions = {}) {
    this.options = parseOptions(options);
    this.detector = options.detector ?? new LanguageDetector();
  }

  /**
   * Counts one URL into its group (or into `other` when unparseable or over the cap). `stated`: the locale its entry
   * declares (its hreflang), which makes a first folder naming it a locale folder, as the walk's filter reads it.
   */
  add(raw: string, stated: string | null = null): void {
    if (this.result !== null) throw new Error('PathGrouper.add() called after finish()');
    this.counts.urls += 1;
    const url = parseHttpUrl(raw);
    if (url === null) return this.addUnparseable(raw);
    const route = this.route(url.pathname, stated);
    const bucket = this.table.get(route.key) ?? this.open(route.key);
    if (bucket === null) this.counts.overflowed += 1;
    (bucket ?? this.other).add(raw, route.locale, this.options.maxSamples);
  }

  /** Counts every URL of one batch (a URL, or a URL with its locale). */
  addBatch(urls: Iterable<string | LocatedUrl>): void {
    for (const url of urls) {
      if (typeof url === 'string') this.add(url);
      else this.add(url.url, url.locale);
    }
  }

  /** The groups, largest first (then by prefix), `other` last; computed once, further calls return the same. */
  finish(): PathGroup[] {
    if (this.result !== null) return this.result;
    this.resolveHeld();
    const kept: [string, Bucket][] = [];
    for (const entry of this.table) {
      if (entry[1].count >= this.options.minGroupSize) kept.push(entry);
      else this.other.absorb(entry[1], this.options.maxSamples);
    }
    const groups = kept.sort(byCountThenPrefix).map(([prefix, bucket]) => bucket.toGroup(prefix));
    if (this.other.count > 0) groups.push(this.other.toGroup(OTHER_GROUP));
    this.result = groups;
    this.table.clear();
    this.logSummary();
    return groups;
  }

  /** Counts so far (`groups` is final once `finish` has run). */
  summary(): PathGroupingSummary {
    return { ...this.counts, groups: this.result?.length ?? this.table.size };
  }

  private route(pathname: string, stated: string | null): Route {
    const segments = leadingSegments(pathname, 2);
    const [first, second] = segments;
    if (first === undefined) return { key: ROOT_GROUP, locale: null };
    const found = this.detector.addSegments(segments);
    if (stated !== null && first.isFolder && segmentNamesLocale(first.name, stated)) return { key: folderKey(second), locale: stated };
    if (found === null) return { key: folderKey(first), locale: null };
    if (found.kind === 'locale') return { key: folderKey(second), locale: found.locale };
    // Evidence only grows, so a code confirmed now would also be confirmed at the end.
    if (this.detector.isConfirmed(found.code)) return { key: folderKey(second), locale: found.code };
    return { key: heldKey(found.code, folderKey(second), folderKey(first)), locale: null };
  }

  private open(key: string): Bucket | null {
    if (this.table.size >= this.options.maxGroups && !this.saturated) this.evictSmall();
    if (this.table.size >= this.options.maxGroups) return null;
    const bucket = new Bucket();
    this.table.set(key, bucket);
    return bucket;
  }

  // Amortised: a sweep costs maxGroups steps and either frees a tenth of the table or ends sweeping.
  private evictSmall(): void {
    const before = this.table.size;
    for (const [key, bucket] of this.table) {
      if (bucket.count >= this.options.minGroupSize) continue;
      this.other.absorb(bucket, this.options.maxSamples);
      this.table.delete(key);
    }
    const freed = before - this.table.size;
    this.counts.evicted += freed;
    if (freed >= Math.max(1, Math.floor(this.options.maxGroups / 10))) return;
    this.saturated = true;
    log.warn(
      { event: 'group_cap_reached', maxGroups: this.options.maxGroups, urls: this.counts.urls },
      'too many distinct path prefixes; new prefixes now go to "other"',
    );
  }

  private addUnparseable(raw: string): void {
    this.counts.unparseable += 1;
    if (this.unparseableExamples.length < MAX_LOGGED_EXAMPLES) this.unparseableExamples.push(raw.slice(0, 200));
    this.other.add(raw.slice(0, MAX_SAMPLE_LENGTH), null, this.options.maxSamples);
  }

  // Held-back `/it/...` buckets join their content group if the site confirms the language, else `/it/*`.
  private resolveHeld(): void {
    for (const [key, bucket] of this.table) {
      if (!key.startsWith(HELD)) continue;
      const [code = '', asLocale = ROOT_GROUP, asWord = ROOT_GROUP] = key.slice(HELD.length).split(HELD);
      const confirmed = this.detector.isConfirmed(code);
      const target = this.targetBucket(confirmed ? asLocale : asWord);
      target.absorb(bucket, this.options.maxSamples);
      if (confirmed) target.addLocale(code);
      this.table.delete(key);
    }
  }

  // Never over the cap: each held bucket removed makes room for at most one new target.
  private targetBucket(key: string): Bucket {
    const existing = this.table.get(key);
    if (existing !== undefined) return existing;
    const bucket = new Bucket();
    this.table.set(key, bucket);
    return bucket;
  }

  private logSummary(): void {
    const summary = this.summary();
    log.info({ event: 'path_groups_done', ...summary }, 'path grouping done');
    if (summary.unparseable === 0) return;
    log.warn(
      { event: 'unparseable_urls', count: summary.unparseable, examples: this.unparseableExamples },
      'URLs that are not absolute http(s) URLs were put in "other"',
    );
  }
}

/** A page URL with the locale its entry declares (the walk's shard entries carry it). */
export interface LocatedUrl {
  url: string;
  locale: string | null;
}

/** Streams the walker's batches into path groups, yielded largest first with `other` last, in memory bounded by `maxGroups`. */
export async function* groupByPathPrefix(
  source: AsyncIterable<readonly (string | LocatedUrl)[]> | Iterable<readonly (string | LocatedUrl)[]>,
  options: PathGroupOptions = {},
): AsyncGenerator<PathGroup> {
  const grouper = new PathGrouper(options);
  for await (const batch of source) grouper.addBatch(batch);
  yield* grouper.finish();
}
