/**
 * Counting one sitemap for the scope estimate: a streamed read that counts what the walk would emit,
 * stops at a time limit, and says how much of the file it saw so a partial count can be scaled up.
 *
 * Extrapolation of a partial read (cut by the time limit): only when the server declared the body's
 * length (Content-Length) and at least MIN_ITEMS_TO_EXTRAPOLATE items were counted. The scale is
 * declared bytes / bytes read off the wire, so it holds for gzip too (the read part and the rest compress
 * alike). It assumes the rest of the file has the URL density of the part read; the decoder's few KiB of
 * read-ahead (errs low) and the unfinished last entry (errs high) are small against a file worth scaling
 * (a 2,000-URL file cut at a third came out at 2,020 in the tests). Without a declared length (chunked,
 * dynamic sitemaps) nothing is extrapolated: `scale` is null.
 */
import { locDropsOf, type LocDrops } from '../../core/loc-drops.js';
import { isFactoryError, type FactoryError } from '../../core/errors.js';
import { openSitemap, type OpenedSitemap } from '../fetch/index.js';
import type { WalkOptions } from '../../core/limits.js';
import { urlLocaleOf, type LanguageDetector } from './locale.js';
import type { SampleScope } from './sample-scope.js';
import { createSitemapParser, type ParsedItem, type SitemapParser } from '../parse/index.js';
import { sitemapRequestOptions } from '../fetch/request-options.js';
import type { ParsedUrl, SitemapFormat } from '../../core/types.js';
import { UrlExpander } from '../url/url-expander.js';
import { tryIdentityKey } from '../url/url-identity.js';
import { createLogger } from '../../utils/logger.js';

const log = createLogger('factory:scope-estimator');

/** Fewest items (URLs or children) counted before a partial read is scaled up: fewer say too little. */
export const MIN_ITEMS_TO_EXTRAPOLATE = 100;
/** Children remembered per index to choose samples from: bounded whatever the index's size. */
export const SPREAD_SAMPLE_SIZE = 32;
// The request deadline lies this far past the soft stop, so a stream that keeps flowing is cut by us
// (quietly, between chunks) and only a stalled one by the deadline.
const STALL_GRACE_MS = 250;

/** Keeps every `stride`-th item and doubles the stride when full: an evenly spread, bounded sample of a stream. */
export class SpreadSample {
  private kept: string[] = [];
  private stride = 1;
  private seen = 0;

  constructor(private readonly size: number) {}

  /** Offers the next item of the stream. */
  add(item: string): void {
    if (this.seen % this.stride === 0) this.kept.push(item);
    this.seen += 1;
    if (this.kept.length < 2 * this.size) return;
    this.kept = this.kept.filter((_, index) => index % 2 === 0);
    this.stride *= 2;
  }

  /** The items kept, in stream order. */
  items(): string[] {
    return [...this.kept];
  }
}

/** `count` items spread evenly over `items` (first, middle, last for 3; the middle for 1); all when fewer. */
export function spreadPick<T>(items: readonly T[], count: number): T[] {
  if (items.length <= count) return [...items];
  const middle = Math.floor(items.length / 2);
  if (count <= 1) return items.slice(middle, middle + count);
  const step = (items.length - 1) / (count - 1);
  return Array.from({ length: count }, (_, index) => items[Math.round(index * step)] as T);
}

/** What counting one sitemap found; counts are exact when `complete`, lower bounds otherwise. */
export interface SitemapCount {
  url: string;
  format: SitemapFormat | null;
  entries: number;
  /** Distinct URLs the walk emits for it (locs and alternates). */
  urls: number;
  children: number;
  /** Some of its children, evenly spread, for sampling. */
  picks: string[];
  /** Read to the end (or to the limit where the walk stops too); false when the time limit cut it. */
  complete: boolean;
  /** Stopped at maxUrlsPerSitemap or maxChildrenPerIndex, like the walk. */
  limited: boolean;
  /** Locs dropped in what was read, by reason (the walk drops them too). */
  drops: LocDrops;
  /** What the counts are multiplied by to cover the whole file: 1 when complete, null when unknown. */
  scale: number | null;
  ms: number;
}

/** What every count of one probe shares. */
export interface CountContext {
  limits: WalkOptions;
  detector: LanguageDetector;
  /** The path groups and locales of the URLs read: the wizard's sub-tree choices. */
  sample: SampleScope;
  /** Identity keys of the top sitemaps: an index listing one again is a cycle the walk skips. */
  skipKeys: Set<string>;
  signal?: AbortSignal;
}

/** True for an index (its count is of child sitemaps, not pages). */
export const isIndexCount = (count: SitemapCount): boolean => count.format === 'sitemapindex';

/** Counts one sitemap's items as the walk would keep them, feeding the language detector. */
class SitemapTally {
  entries = 0;
  urls = 0;
  children = 0;
  limited = false;
  private readonly expander = new UrlExpander();
  private readonly spread = new SpreadSample(SPREAD_SAMPLE_SIZE);

  constructor(private readonly context: CountContext) {}

  /** Takes one parser step; stops taking once a limit is reached. */
  take(items: ParsedItem[]): void {
    for (const item of items) {
      if (this.limited) return;
      if (item.type === 'url') this.takeEntry(item.entry);
      else this.takeChild(item.loc);
    }
  }

  picks(): string[] {
    return this.spread.items();
  }

  private takeEntry(entry: ParsedUrl): void {
    if (this.entries >= this.context.limits.maxUrlsPerSitemap) return void (this.limited = true);
    this.entries += 1;
    const urls = this.expander.expandPositions(entry);
    for (let i = 0; i < urls.length; i++) {
      const url = urls[i];
      if (url === null || url === undefined) continue;
      this.urls += 1;
      this.context.sample.add(url, urlLocaleOf(entry, i, url));
    }
    this.context.detector.addEntry(entry);
  }

  private takeChild(loc: string): void {
    if (this.context.skipKeys.has(tryIdentityKey(loc) ?? loc)) return;
    if (this.children >= this.context.limits.maxChildrenPerIndex) return void (this.limited = true);
    this.children += 1;
    this.spread.add(loc);
    this.context.detector.addUrl(loc);
  }
}

const isKind = (error: unknown, kind: FactoryError['kind']): boolean => isFactoryError(error) && error.kind === kind;

/** Feeds the decoded bytes to the parser until the end, a limit or `stopAt`; false when cut short. */
async function feed(source: AsyncIterable<Uint8Array>, reader: { parser: SitemapParser; tally: SitemapTally }, stopAt: number): Promise<boolean> {
  const { parser, tally } = reader;
  try {
    for await (const chunk of source) {
      tally.take(parser.write(chunk));
      if (tally.limited) return true;
      if (performance.now() >= stopAt) return false;
    }
    tally.take(parser.end());
    return true;
  } catch (error) {
    // The deadline firing mid-body is the time limit too: what was counted stands as a lower bound.
    if (!isKind(error, 'timeout')) throw error;
    return false;
  }
}

function scaleOf(opened: OpenedSitemap, tally: SitemapTally, complete: boolean): number | null {
  if (complete) return 1;
  if (opened.declaredBytes === null || opened.wireBytes() === 0) return null;
  if (tally.entries + tally.children < MIN_ITEMS_TO_EXTRAPOLATE) return null;
  return Math.max(1, opened.declaredBytes / opened.wireBytes());
}

/**
 * GETs and stream-parses one sitemap for at most `windowMs`, counting instead of collecting.
 * Throws what opening it throws (`http_status` with the status, `timeout` before the body, ...).
 */
export async function countSitemap(url: string, windowMs: number, context: CountContext): Promise<SitemapCount> {
  const started = performance.now();
  const request = {
    ...sitemapRequestOptions(context.limits, context.signal),
    timeoutMs: Math.max(1, Math.ceil(Math.min(context.limits.timeoutMs, windowMs + STALL_GRACE_MS))),
  };
  const opened = await openSitemap(url, request);
  const parser = createSitemapParser({ sitemapUrl: opened.url, maxUrlLength: context.limits.maxUrlLength });
  const tally = new SitemapTally(context);
  const complete = await feed(opened.bytes, { parser, tally }, started + windowMs);
  const { entries, urls, children, limited } = tally;
  const scale = scaleOf(opened, tally, complete);
  const ms = performance.now() - started;
  log.debug({ event: 'estimate_sitemap_counted', url, entries, urls, children, complete, scale, bytes: opened.wireBytes(), ms }, 'sitemap counted');
  const { format, dropped, dropExamples } = parser.stats;
  return { url, format, entries, urls, children, picks: tally.picks(), complete, limited, drops: locDropsOf(dropped, dropExamples), scale, ms };
}
