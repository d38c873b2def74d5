import { discover, fallbackAfterRobots, parseRootUrl, type Discovery } from './discovery/discovery.js';
import { isFactoryError } from '../core/errors.js';
import { resolveWalkOptions, type WalkOptions, type WalkOptionsInput } from '../core/limits.js';
import { compileFilter, type EntryFilter } from './filter/index.js';
import { localeOf, pathFactsOf, pathnameOfValidUrl, urlLocaleOf } from './scope/locale.js';
import { readSitemap, type ItemMapper, type ReadSitemapContext, type SitemapOpener } from './walk/sitemap-reader.js';
import type { ParsedUrl, ShardEntry, SitemapEntry, SitemapRef, SitemapValidator, Validators, WalkState } from '../core/types.js';
import { UrlExpander } from './url/url-expander.js';
import { parseSiteUrl } from './url/site-url.js';
import { PageDedupe } from './url/page-dedupe.js';
import { SitemapWalk, type WalkEvent, type WalkSetup } from './walk/walker.js';
import { noSitemapError, whenAllRootsFail } from './walk/walk-policy.js';
import { openSitemapIfModified } from './fetch/index.js';
import { openLocalSitemap } from './fetch/open-local-file.js';
import { createLogger, useLogger, type LoggerLike } from '../utils/logger.js';

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
  /** A pino-compatible logger for the library's logs (process wide from then on); without it the library is silent. */
  logger?: LoggerLike;
  /**
   * Read a `file:` URL as a local sitemap (the CLI's path inputs); the children it lists are fetched as usual.
   * Off by default: a service passing callers' URLs must never read its own disk.
   */
  readLocalFiles?: boolean;
  /**
   * The previous run's validators (each `sitemap` event's `validator`, keyed by `validatorKey(event.url)`): children
   * whose index lastmod did not move are not fetched, others are asked for with If-None-Match / If-Modified-Since;
   * either way they end in a `sitemap` event with `unchanged: true` and yield no URLs. Leave it out for a full run.
   */
  previous?: Validators;
  /**
   * Told how many items each sitemap's pages became as they are read, before the walk batches them: a progress
   * display's count of what was found (batches are handed out a thousand at a time). A retried read counts again.
   */
  onFound?: (items: number) => void;
  /** Told what discovery found (robots.txt, its rules, where the roots came from) before a site root's walk begins. */
  onDiscovery?: (found: Discovery) => void;
}

/** A site root (`https://host/`, path `/`, no query) is discovered first; any other URL is a sitemap. */
export function isSiteRoot(url: string): boolean {
  const parsed = parseRootUrl(url);
  return parsed.pathname === '/' && parsed.search === '';
}

/** A site's sitemap URLs: robots.txt `Sitemap:` lines, else the well-known paths, else `[]` (with a warning). */
export async function discoverSitemaps(rootUrl: string, options: WalkOptionsInput & { signal?: AbortSignal; logger?: LoggerLike } = {}): Promise<string[]> {
  const found = await discover(rootUrl, resolveWalkOptions(pickLimits(options)), options.signal);
  return found.sitemaps;
}

/** Page entries with where they came from, in document order per sitemap. */
export function toSitemapEntry(parsed: ParsedUrl, ref: SitemapRef): SitemapEntry {
  // One literal of one shape (a spread builds the object key by key), and the loc's path read once for both fields.
  const pathname = pathnameOfValidUrl(parsed.loc);
  const { loc, lastmod, changefreq, priority, alternates, images, videos, news } = parsed;
  const facts = pathname === null ? null : pathFactsOf(pathname);
  // The path's locale, else the hreflang alternate pointing at the entry itself (localeOf without the path read again).
  const locale = facts?.locale ?? (alternates.length === 0 ? null : localeOf(parsed, null));
  // A first folder naming the hreflang locale (`/ca/x/`, `ca`) is a locale folder: the group is the one after it.
  const pathPrefix =
    pathname === null || facts === null ? null : facts.locale === null && locale !== null ? pathFactsOf(pathname, locale).pathPrefix : facts.pathPrefix;
  return { loc, lastmod, changefreq, priority, alternates, images, videos, news, source: ref.url, depth: ref.depth, locale, pathPrefix };
}

/**
 * Maps each parsed page to its rich entry (one item per distinct loc: the first entry of its page key in this sitemap,
 * its loc normalised as PageDedupe gives it), dropping entries the filter refuses. The alternates stay inside the entry.
 */
export const createEntryMapper = (keep: EntryFilter | null = null): ItemMapper<SitemapEntry> & { release: () => void } => {
  const dedupe = new PageDedupe();
  const locs: string[] = [];
  const map = (pages: readonly ParsedUrl[], ref: SitemapRef, out: SitemapEntry[]) => {
    for (const parsed of pages) locs.push(parsed.loc);
    const fresh = dedupe.admit(locs);
    for (let i = 0; i < pages.length; i++) {
      if (fresh[i] !== 1) continue;
      const parsed = pages[i] as ParsedUrl;
      const loc = locs[i] as string;
      const entry = toSitemapEntry(loc === parsed.loc ? parsed : { ...parsed, loc }, ref);
      if (keep === null || keep({ url: entry.loc, lastmod: entry.lastmod, locale: entry.locale }, ref)) out.push(entry);
    }
    locs.length = 0;
  };
  return Object.assign(map, { release: () => dedupe.clear() });
};

/**
 * Maps each parsed page to its URLs: the loc and its hreflang alternates, once per sitemap, as page keys. With a
 * filter each URL is judged on its own (an alternate by its hreflang locale), so `--locale fr` keeps the French
 * alternate of an English page.
 */
export const createUrlMapper = (keep: EntryFilter | null = null): ItemMapper<string> & { release: () => void } => {
  const expander = new UrlExpander();
  const release = () => expander.clear();
  if (keep === null) return Object.assign((pages: readonly ParsedUrl[], _ref: SitemapRef, out: string[]) => expander.expandAll(pages, out), { release });
  // Page by page: each URL is judged with its own page's lastmod and locale.
  const filtered = (pages: readonly ParsedUrl[], ref: SitemapRef, out: string[]) => {
    for (const parsed of pages) {
      const urls = expander.expandPositions(parsed);
      for (let i = 0; i < urls.length; i++) {
        const url = urls[i];
        if (url !== null && url !== undefined && keep({ url, lastmod: parsed.lastmod, locale: urlLocaleOf(parsed, i, url) }, ref)) out.push(url);
      }
    }
  };
  return Object.assign(filtered, { release });
};

/** The options' filter, with the walk's root standing in for the scope's root when the caller gave none. */
function filterFor(options: WalkOptions, root: string | null): EntryFilter | null {
  const filter = options.filter;
  const usable = root !== null && !root.startsWith('file:');
  return compileFilter(filter.scope !== 'all' && filter.scopeRoot === null && usable ? { ...filter, scopeRoot: root } : filter);
}

/** Every event of a walk over rich entries (CLI `--ndjson`, jobs): batches, sitemaps, errors, summary. */
export function walkSitemapEvents(url: string, options: WalkCallOptions = {}): AsyncGenerator<WalkEvent<SitemapEntry>> {
  return walkEvents(url, options, (keep) => () => createEntryMapper(keep));
}

/** Every event of a walk over page URLs (alternates added, deduped per sitemap). */
export function walkUrlEvents(url: string, options: WalkCallOptions = {}): AsyncGenerator<WalkEvent<string>> {
  return walkEvents(url, options, (keep) => () => createUrlMapper(keep));
}

/** Rich entries (loc, lastmod, changefreq, priority, alternates, images, videos, news, source, depth) in batches of at most 1000. */
export async function* walkSitemapEntries(url: string, options: WalkCallOptions = {}): AsyncGenerator<SitemapEntry[]> {
  yield* batchesOf(walkSitemapEvents(url, options), options);
}

/**
 * Page URLs as a job's shards hold them (alternates added, deduped per sitemap), each with its page's lastmod,
 * changefreq, priority and its own locale, in batches of at most 1000: what `groups` reads.
 */
export async function* walkShardEntries(url: string, options: WalkCallOptions = {}): AsyncGenerator<ShardEntry[]> {
  yield* batchesOf(
    walkEvents(url, options, (keep) => () => createShardEntryMapper(keep)),
    options,
  );
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
  const { signal: _signal, state: _state, onEvent: _onEvent, logger, readLocalFiles: _local, previous: _previous, onFound: _onFound, ...limits } = options;
  if (logger) useLogger(logger);
  return limits;
}

/** Makes a walk's per-sitemap mapper factory from its compiled filter. */
export type MapperFactory<T> = (keep: EntryFilter | null) => () => ItemMapper<T>;

/** Every event of a walk whose items `mapperFor` makes (the filter compiled for the walk handed to it). */
export async function* walkEvents<T>(url: string, options: WalkCallOptions, mapperFor: MapperFactory<T>): AsyncGenerator<WalkEvent<T>> {
  const limits = resolveWalkOptions(pickLimits(options));
  // THE filter hook: every walk (CLI, library) and every job (readSitemapShardEntries) maps items through these mappers.
  const setup: WalkSetup<T> = {
    createMapper: counted(mapperFor(filterFor(limits, url)), options.onFound),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.previous ? { previous: new Map(Object.entries(options.previous)) } : {}),
  };
  if (options.state) return yield* new SitemapWalk<T>(limits, { state: options.state }, setup).events();
  if (options.readLocalFiles === true && url.startsWith('file:')) return yield* localFileWalk(url, limits, setup);
  // Refused before any lookup: no host written, or a single-label name the user did not open (site-url.ts).
  const checked = parseSiteUrl(url, limits.net);
  if (!isSiteRoot(url)) return yield* new SitemapWalk<T>(limits, { roots: [checked.href] }, setup).events();
  const found = await discoveredRoots(url, limits, options.signal);
  options.onDiscovery?.(found);
  // The summary's `errors` is every error line of the run: discovery's problems, a failed walk's before the fallback.
  let errorLines = 0;
  for (const problem of found.problems) {
    errorLines += 1;
    yield { type: 'error', ...problem };
  }
  // Nothing to walk is a failure of the whole walk, as it is of a job: silence would read as "an empty site".
  if (found.sitemaps.length === 0) throw noSitemapError(url);
  const withOuterErrors = async function* (events: AsyncGenerator<WalkEvent<T>>): AsyncGenerator<WalkEvent<T>> {
    for await (const event of events) {
      if (event.type === 'error') errorLines += 1;
      yield event.type === 'summary' ? { ...event, errors: errorLines } : event;
    }
  };
  try {
    yield* withOuterErrors(new SitemapWalk<T>(limits, { roots: found.sitemaps }, setup).events());
  } catch (error) {
    // Every robots.txt sitemap failed with nothing found: stale lines are common, the well-known paths may still answer.
    const origin = found.source === 'none' ? 'robots' : found.source;
    const fallback = whenAllRootsFail(origin) === 'fallback' && isFactoryError(error) ? await fallbackAfterRobots(found, limits, options.signal) : null;
    if (!fallback || !isFactoryError(error)) throw error;
    log.warn({ event: 'robots_sitemaps_failed', url, fallback, kind: error.kind }, 'robots.txt sitemaps failed: trying a well-known path');
    errorLines += 1;
    yield { type: 'error', kind: error.kind, url: error.url, message: error.message, parent: null, depth: 0 };
    yield* withOuterErrors(new SitemapWalk<T>(limits, { roots: [fallback] }, setup).events());
  }
}

// Each mapper made by `create`, telling `onFound` how many items each step of pages became.
function counted<T>(create: () => ItemMapper<T>, onFound: ((items: number) => void) | undefined): () => ItemMapper<T> {
  if (onFound === undefined) return create;
  return () => {
    const mapper = create();
    const counting = (pages: readonly ParsedUrl[], ref: SitemapRef, out: T[]) => {
      const before = out.length;
      mapper(pages, ref, out);
      onFound(out.length - before);
    };
    return mapper.release === undefined ? counting : Object.assign(counting, { release: mapper.release });
  };
}

/** The resolved limits of a walk's call options (what `walkSitemap` would walk with). */
export function walkLimits(options: WalkCallOptions): WalkOptions {
  return resolveWalkOptions(pickLimits(options));
}

// A local file starts the walk as a resumed frontier would: file URLs are never identity-keyed or SSRF-checked,
// and only this one is opened from disk; the children it lists go through the network path as usual.
function localFileWalk<T>(fileUrl: string, limits: WalkOptions, setup: WalkSetup<T>): AsyncGenerator<WalkEvent<T>> {
  const open: SitemapOpener = (url, request, conditional) =>
    url === fileUrl ? openLocalSitemap(url, request) : openSitemapIfModified(url, request, conditional);
  const state = { frontier: [{ url: fileUrl, depth: 0, parent: null }], active: [], visited: [], sitemapsDone: 0, urlsEmitted: 0 };
  return new SitemapWalk<T>(limits, { state }, { ...setup, open }).events();
}

async function discoveredRoots(url: string, limits: WalkOptions, signal?: AbortSignal) {
  const found = await discover(url, limits, signal);
  log.info({ event: 'sitemaps_discovered', url, source: found.source, sitemaps: found.sitemaps.length }, 'discovery done');
  return found;
}

/**
 * Maps each parsed page to shard entries: its URLs as `createUrlMapper` keeps them (the loc and its alternates, once
 * per sitemap), each with the page's lastmod, changefreq and priority and its own locale, the one the filter judged.
 */
export const createShardEntryMapper = (keep: EntryFilter | null = null): ItemMapper<ShardEntry> => {
  const expander = new UrlExpander();
  const toEntries = (pages: readonly ParsedUrl[], ref: SitemapRef, out: ShardEntry[]) => {
    for (const parsed of pages) {
      const { lastmod, changefreq, priority } = parsed;
      const urls = expander.expandPositions(parsed);
      for (let i = 0; i < urls.length; i++) {
        const url = urls[i];
        if (url === null || url === undefined) continue;
        const locale = urlLocaleOf(parsed, i, url);
        if (keep === null || keep({ url, lastmod, locale }, ref)) out.push({ url, lastmod, changefreq, priority, source: ref.url, locale });
      }
    }
  };
  return Object.assign(toEntries, { release: () => expander.clear() });
};

// A slice reads every sitemap with one options object: its filter is compiled once, not once per sitemap.
const jobFilters = new WeakMap<WalkOptions, EntryFilter | null>();
function jobFilterFor(options: WalkOptions): EntryFilter | null {
  if (!jobFilters.has(options)) jobFilters.set(options, filterFor(options, null));
  return jobFilters.get(options) ?? null;
}

/**
 * Reads one sitemap as shard entries from `context.skip` on (the job runner's unit of work and of shards), through the
 * job's filter; with the previous run's validator for it, unchanged as the walk decides (no entries).
 */
export function readSitemapShardEntries(ref: SitemapRef, options: WalkOptions, context: ReadSitemapContext & { previous: SitemapValidator | null }) {
  const keep = jobFilterFor(options);
  return readSitemap(ref, options, { ...context, createMapper: () => createShardEntryMapper(keep) });
}
