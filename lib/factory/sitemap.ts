import { discover, fallbackAfterRobots, parseRootUrl } from './discovery/discovery.js';
import { isFactoryError } from './errors.js';
import { resolveWalkOptions, type WalkOptions, type WalkOptionsInput } from './limits.js';
import { localeOf, pathPrefixOf } from './scope/locale.js';
import { readSitemap, type ItemMapper, type ReadSitemapContext } from './walk/sitemap-reader.js';
import type { ParsedUrl, ShardEntry, SitemapEntry, SitemapRef, WalkState } from './types.js';
import { UrlExpander } from './url/url-expander.js';
import { SitemapWalk, type WalkEvent } from './walk/walker.js';
import { noSitemapError, whenAllRootsFail } from './walk/walk-policy.js';
import { createLogger } from '../utils/logger.js';

export { BATCH_SIZE, type WalkEvent } from './walk/walker.js';
export { FALLBACK_SITEMAP_PATHS, type Discovery } from './discovery/discovery.js';

const log = createLogger('factory:sitemap');

/** Options of a walk: the limits, plus cancellation, a state to resume from, and a listener for non-batch events. */
export interface WalkCallOptions extends WalkOptionsInput {
  signal?: AbortSignal;
  /** Resume a walk from `SitemapWalk.state()` saved after some batch (discovery is then skipped). */
  state?: WalkState;
  /** Sitemaps read, failures and the summary, as they happen (batches are what the generator yields). */
  onEvent?: (event: Exclude<WalkEvent<unknown>, { type: 'batch' }>) => void;
}

/** A site root (`https://host/`, path `/`, no query) is discovered first; any other URL is a sitemap. */
export function isSiteRoot(url: string): boolean {
  const parsed = parseRootUrl(url);
  return parsed.pathname === '/' && parsed.search === '';
}

/** A site's sitemap URLs: robots.txt `Sitemap:` lines, else the well-known paths, else `[]` (with a warning). */
export async function discoverSitemaps(rootUrl: string, options: WalkOptionsInput & { signal?: AbortSignal } = {}): Promise<string[]> {
  const found = await discover(rootUrl, resolveWalkOptions(pickLimits(options)), options.signal);
  return found.sitemaps;
}

/** Page entries with where they came from, in document order per sitemap. */
export function toSitemapEntry(parsed: ParsedUrl, ref: SitemapRef): SitemapEntry {
  return { ...parsed, source: ref.url, depth: ref.depth, locale: localeOf(parsed), pathPrefix: pathPrefixOf(parsed.loc) };
}

/** Maps each parsed page to its rich entry (one item per page). */
export const createEntryMapper = (): ItemMapper<SitemapEntry> => (parsed, ref) => [toSitemapEntry(parsed, ref)];

/** Maps each parsed page to its URLs: the loc and its hreflang alternates, once per sitemap. */
export const createUrlMapper = (): ItemMapper<string> => {
  const expander = new UrlExpander();
  return (parsed) => expander.expand(parsed);
};

/** Every event of a walk over rich entries (CLI `--ndjson`, jobs): batches, sitemaps, errors, summary. */
export function walkSitemapEvents(url: string, options: WalkCallOptions = {}): AsyncGenerator<WalkEvent<SitemapEntry>> {
  return walkEvents(url, options, createEntryMapper);
}

/** Every event of a walk over page URLs (alternates added, deduped per sitemap). */
export function walkUrlEvents(url: string, options: WalkCallOptions = {}): AsyncGenerator<WalkEvent<string>> {
  return walkEvents(url, options, createUrlMapper);
}

/** Rich entries (loc, lastmod, changefreq, priority, alternates, images, videos, news, source, depth) in batches of at most 1000. */
export async function* walkSitemapEntries(url: string, options: WalkCallOptions = {}): AsyncGenerator<SitemapEntry[]> {
  yield* batchesOf(walkSitemapEvents(url, options), options);
}

/** Page URLs (hreflang alternates added, deduped against locs) in batches of at most 1000. */
export async function* walkSitemap(url: string, options: WalkCallOptions = {}): AsyncGenerator<string[]> {
  yield* batchesOf(walkUrlEvents(url, options), options);
}

async function* batchesOf<T>(events: AsyncGenerator<WalkEvent<T>>, options: WalkCallOptions): AsyncGenerator<T[]> {
  for await (const event of events) {
    if (event.type === 'batch') yield event.items;
    else options.onEvent?.(event);
  }
}

/** The limits part of the call options (the rest is not the schema's business). */
function pickLimits(options: WalkCallOptions): WalkOptionsInput {
  const { signal: _signal, state: _state, onEvent: _onEvent, ...limits } = options;
  return limits;
}

async function* walkEvents<T>(url: string, options: WalkCallOptions, createMapper: () => ItemMapper<T>): AsyncGenerator<WalkEvent<T>> {
  const limits = resolveWalkOptions(pickLimits(options));
  const setup = { createMapper, ...(options.signal ? { signal: options.signal } : {}) };
  if (options.state) return yield* new SitemapWalk<T>(limits, { state: options.state }, setup).events();
  if (!isSiteRoot(url)) return yield* new SitemapWalk<T>(limits, { roots: [parseRootUrl(url).href] }, setup).events();
  const found = await discoveredRoots(url, limits, options.signal);
  for (const problem of found.problems) yield { type: 'error', ...problem };
  // Nothing to walk is a failure of the whole walk, as it is of a job: silence would read as "an empty site".
  if (found.sitemaps.length === 0) throw noSitemapError(url);
  try {
    yield* new SitemapWalk<T>(limits, { roots: found.sitemaps }, setup).events();
  } catch (error) {
    // Every robots.txt sitemap failed with nothing found: stale lines are common, the well-known paths may still answer.
    const origin = found.source === 'fallback' ? 'fallback' : 'robots';
    const fallback = whenAllRootsFail(origin) === 'fallback' && isFactoryError(error) ? await fallbackAfterRobots(found, limits, options.signal) : null;
    if (!fallback || !isFactoryError(error)) throw error;
    log.warn({ event: 'robots_sitemaps_failed', url, fallback, kind: error.kind }, 'robots.txt sitemaps failed: trying a well-known path');
    yield { type: 'error', kind: error.kind, url: error.url, message: error.message, parent: null, depth: 0 };
    yield* new SitemapWalk<T>(limits, { roots: [fallback] }, setup).events();
  }
}

async function discoveredRoots(url: string, limits: WalkOptions, signal?: AbortSignal) {
  const found = await discover(url, limits, signal);
  log.info({ event: 'sitemaps_discovered', url, source: found.source, sitemaps: found.sitemaps.length }, 'discovery done');
  return found;
}

/** Maps each parsed page to shard entries: its URLs as `createUrlMapper` emits them, each with the page's lastmod, changefreq and priority. */
export const createShardEntryMapper = (): ItemMapper<ShardEntry> => {
  const expander = new UrlExpander();
  return (parsed, ref) => {
    const { lastmod, changefreq, priority } = parsed;
    return expander.expand(parsed).map((url) => ({ url, lastmod, changefreq, priority, source: ref.url }));
  };
};

/** Reads one sitemap as shard entries from `context.skip` on (the job runner's unit of work and of shards). */
export function readSitemapShardEntries(ref: SitemapRef, options: WalkOptions, context: ReadSitemapContext) {
  return readSitemap(ref, options, { ...context, createMapper: createShardEntryMapper });
}
