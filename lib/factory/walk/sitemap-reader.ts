import { locDropsOf, locDropsText, type LocDrops } from '../../core/loc-drops.js';
import { FactoryError, toFactoryError } from '../../core/errors.js';
import {
  openSitemapIfModified,
  RedirectDeclined,
  type ConditionalRequest,
  type NotModifiedSitemap,
  type OpenSitemapOptions,
  type OpenedSitemap,
} from '../fetch/index.js';
import type { WalkOptions } from '../../core/limits.js';
import { createSitemapParser, type ParsedItem, type ParseStats, type SitemapParser } from '../parse/index.js';
import { sitemapRequestOptions } from '../fetch/request-options.js';
import type { ParsedUrl, ReportedError, SitemapFormat, SitemapRef, SitemapValidator } from '../../core/types.js';
import { fetchPlan, validatorToKeep } from './walk-policy.js';
import { DocumentStart, type SitemapDocument } from './sitemap-document.js';
import { createLogger } from '../../utils/logger.js';
import { backoffDelayMs } from '../../utils/backoff.js';
import { printableUrl } from '../url/site-url.js';

const log = createLogger('factory:sitemap-reader');

/** What reading one sitemap produces, in document order: its items (after `skip`) and the children it lists. */
export type SitemapReadEvent<T> =
  | { type: 'items'; items: T[] }
  | { type: 'children'; refs: SitemapRef[] }
  /** The response came from another URL (redirects followed): the sitemap is known by that final URL too. */
  | { type: 'redirected'; finalUrl: string };

/** Where to start and how to cut: `skip` items already emitted (resume), at most `batchSize` items an event. */
export interface ReadSitemapContext {
  skip: number;
  batchSize: number;
  /**
   * Hand out what a parser step left under `batchSize` at the step's end (the walk, which re-batches) instead of
   * holding it for the next step (jobs, whose events are exact shards). Held items pin the chunk text their
   * strings are sliced from until the sitemap's next chunk is parsed, and with 8 sitemaps in flight that often
   * outlived two young-generation collections: V8 promoted chunks to the old space as garbage-to-be.
   */
  handOutEachStep?: boolean;
  signal?: AbortSignal;
  /**
   * Asked before each redirect hop (the frontier's visit of the target): false means the target was read already, and
   * the read ends with a `redirected` event naming it instead of fetching it again.
   */
  followRedirect?: (url: string) => boolean | Promise<boolean>;
}

/** A read of one sitemap: where to start, and how each page becomes items (a fresh mapper per attempt). */
export interface ReadSitemapSetup<T> extends ReadSitemapContext {
  createMapper: () => ItemMapper<T>;
  /** How a sitemap's bytes are obtained: `openSitemapIfModified` (the network) unless a caller reads some from elsewhere (a local file). */
  open?: SitemapOpener;
  /** What the previous run learned of this sitemap (incremental re-sync); null or absent: read it whole. */
  previous?: SitemapValidator | null;
}

/** Opens one sitemap for reading, conditionally when given validators; the default is `openSitemapIfModified`. */
export type SitemapOpener = (url: string, options: OpenSitemapOptions, conditional: ConditionalRequest | null) => Promise<OpenedSitemap | NotModifiedSitemap>;

// 500 is left out on purpose: it is as often a broken generator as a passing fault.
const RETRY_STATUSES = new Set([
  502, // Bad Gateway
  503, // Service Unavailable
  504, // Gateway Timeout
]);

/** What one sitemap held once read: counts, format and the limits it ran into (reported, not thrown). */
export interface SitemapReadSummary {
  url: string;
  finalUrl: string;
  format: SitemapFormat | null;
  depth: number;
  /** Page entries parsed (before `skip`); at most maxUrlsPerSitemap. */
  entries: number;
  /** Items produced, `skip` included: the offset a finished sitemap ends at. */
  items: number;
  /** Children listed, counted up to maxChildrenPerIndex + 1: past the cap the index is not read on. */
  children: number;
  dropped: number;
  /** The locs dropped, by reason, each with the first one (`dropped` is their total). */
  drops: LocDrops;
  /** `<lastmod>` values that were not W3C datetimes (read as null). */
  invalidLastmod: number;
  bytes: number;
  truncated: boolean;
  problems: ReportedError[];
  /** Not read because unchanged since the previous run (index lastmod not moved, or a 304): its items are the previous run's. */
  unchanged: boolean;
  /** What to remember of it for the next run (walk-policy `validatorToKeep`), or null. */
  validator: SitemapValidator | null;
  /** How it was served and how its document starts; null when it was not read (unchanged). */
  document: SitemapDocument | null;
}

/**
 * Maps the pages of one parser step to the items a walk emits for them (each entry itself, or its new URLs),
 * pushed onto `out` in document order: the reader's pending batch, so no array is built per page. A whole step
 * at once, so the URL dedupe can hash all of it before probing. `release`, when given, is called once the read it
 * was made for ends, to hand back what it held for that sitemap.
 */
export type ItemMapper<T> = ((entries: readonly ParsedUrl[], ref: SitemapRef, out: T[]) => void) & { release?: () => void };

/** Counts, skips and cuts the parser's items for one sitemap; the limits of DESIGN are enforced here. */
class ReadCursor<T> {
  entries = 0;
  items = 0;
  children = 0;
  full = false;
  readonly problems: ReportedError[] = [];
  private pending: T[] = [];
  // The pages of the current parser step, mapped together.
  private readonly pages: ParsedUrl[] = [];
  /** The parser of an attempt whose bytes stopped coming (a cut, a reset, a truncated gzip): what it holds can still be read. */
  cutParser: SitemapParser | null = null;

  constructor(
    private readonly ref: SitemapRef,
    private readonly options: WalkOptions,
    private readonly context: ReadSitemapContext & { mapItems: ItemMapper<T> },
  ) {}

  /** Items handed out so far, `skip` included: where a retry picks up. */
  get handedOut(): number {
    return Math.max(this.context.skip, this.items - this.pending.length);
  }

  /** Takes the items of one parser step and returns the events ready to go out. */
  take(parsed: ParsedItem[]): Array<SitemapReadEvent<T>> {
    const events: Array<SitemapReadEvent<T>> = [];
    const refs: SitemapRef[] = [];
    const pages = this.pages;
    for (const item of parsed) {
      if (item.type === 'url') {
        pages.push(item.entry);
        continue;
      }
      this.takePages(events);
      if (this.full) break;
      this.takeChild(item.loc, item.lastmod, refs);
    }
    this.takePages(events);
    if (this.context.handOutEachStep === true && this.pending.length > 0) events.push({ type: 'items', items: this.flushAll() });
    if (refs.length > 0) events.push({ type: 'children', refs });
    return events;
  }

  /** The last partial batch. */
  flush(): Array<SitemapReadEvent<T>> {
    const rest = this.flushAll();
    return rest.length > 0 ? [{ type: 'items', items: rest }] : [];
  }

  /**
   * Everything read before a final failure: the complete entries still in a cut parser (it holds a small document's
   * first bytes while it sniffs the format), then the last partial batch. A parser that fails on them gives nothing more.
   */
  salvage(): Array<SitemapReadEvent<T>> {
    const parser = this.cutParser;
    this.cutParser = null;
    let events: Array<SitemapReadEvent<T>> = [];
    if (parser !== null && !this.full) {
      try {
        events = this.take(parser.end());
      } catch {
        // The cut bytes did not parse: what was handed out before them stands.
      }
    }
    return [...events, ...this.flush()];
  }

  // Maps the pages gathered so far, up to maxUrlsPerSitemap, and cuts full batches.
  private takePages(events: Array<SitemapReadEvent<T>>): void {
    const pages = this.pages;
    if (pages.length === 0 || this.full) {
      pages.length = 0;
      return;
    }
    const room = this.options.maxUrlsPerSitemap - this.entries;
    const over = pages.length > room;
    if (over) pages.length = room;
    this.entries += pages.length;
    const pending = this.pending;
    const before = pending.length;
    this.context.mapItems(pages, this.ref, pending);
    pages.length = 0;
    const added = pending.length - before;
    this.items += added;
    // On a retry, the first `skip` items were handed out by an earlier attempt.
    const fresh = Math.min(added, this.items - this.context.skip);
    if (fresh < added) pending.splice(before, added - Math.max(0, fresh));
    while (this.pending.length >= this.context.batchSize) events.push(this.cut());
    if (over) {
      this.full = true;
      this.problem('too_many_urls', `more than ${this.options.maxUrlsPerSitemap} URLs: the first ${this.options.maxUrlsPerSitemap} kept`);
    }
  }

  // One full batch off the front of the pending items.
  private cut(): SitemapReadEvent<T> {
    const size = this.context.batchSize;
    if (this.pending.length === size) return { type: 'items', items: this.flushAll() };
    return { type: 'items', items: this.pending.splice(0, size) };
  }

  private flushAll(): T[] {
    const rest = this.pending;
    this.pending = [];
    return rest;
  }

  private takeChild(loc: string, lastmod: string | null, refs: SitemapRef[]): void {
    this.children += 1;
    const depth = this.ref.depth + 1;
    if (this.children > this.options.maxChildrenPerIndex) {
      // The index is cut here, as a urlset at its URL cap: an index of a million children is neither parsed to its
      // end nor read up to the byte cap (which would turn the limit into a too_large failure of the whole index).
      this.full = true;
      this.problem('too_many_children', `more than ${this.options.maxChildrenPerIndex} child sitemaps: the rest not read`);
      return;
    }
    if (depth > this.options.maxDepth) {
      if (!this.problems.some((problem) => problem.kind === 'too_deep')) {
        this.problem('too_deep', `children at depth ${depth} exceed maxDepth ${this.options.maxDepth}: skipped`);
      }
      return;
    }
    refs.push({ url: loc, depth, parent: this.ref.url, lastmod });
  }

  private problem(kind: ReportedError['kind'], message: string, extra: Pick<ReportedError, 'readWhole'> = {}): void {
    this.problems.push({ kind, url: this.ref.url, message, parent: this.ref.parent, depth: this.ref.depth, ...extra });
    log.warn({ event: 'sitemap_limit', kind, url: this.ref.url, depth: this.ref.depth }, message);
  }

  summary(opened: OpenedSitemap, stats: ParseStats, document: SitemapDocument): SitemapReadSummary {
    if (stats.truncated && !this.full) this.problem('invalid_xml', `document ends before its root element closes: the ${this.entries} entries read are kept`);
    const drops = locDropsOf(stats.dropped, stats.dropExamples);
    const dropsText = locDropsText(drops);
    // Locs the protocol does not allow are dropped, never in silence: one problem per sitemap, and no failure of it (it
    // was read whole), so the walk, the job and the sync record show it alike. A junk child loc (`javascript:...`)
    // keeps no child's URLs unread; it is counted, its text never shown. A page loc's drops come with an example.
    if (stats.refusedChildren > 0) {
      this.problem(
        'invalid_url',
        `${stats.refusedChildren} child sitemap loc(s) refused before any fetch (not an http(s) URL, malformed or too long): not followed`,
        { readWhole: true },
      );
    } else if (dropsText !== null) {
      this.problem('invalid_url', `${dropsText}: not kept (a page loc must be an absolute http(s) URL)`, { readWhole: true });
    }
    const dropped = Object.values(stats.dropped).reduce((sum, count) => sum + count, 0);
    const read = { ref: this.ref, children: this.children, problems: this.problems.length, etag: opened.etag, lastModified: opened.lastModified };
    return {
      url: this.ref.url,
      finalUrl: opened.url,
      format: stats.format,
      depth: this.ref.depth,
      entries: this.entries,
      items: this.items,
      children: this.children,
      dropped,
      drops,
      invalidLastmod: stats.invalidLastmod,
      bytes: stats.bytes,
      truncated: this.full,
      problems: this.problems,
      unchanged: false,
      validator: validatorToKeep(read),
      document,
    };
  }
}

/**
 * A sitemap left unread because it did not change since the previous run: no items, no children, and the
 * previous validators carried on (refreshed by a 304's own, and with the lastmod its index lists it with now).
 */
function unchangedSummary(
  ref: SitemapRef,
  skip: number,
  seen: { finalUrl: string; previous: SitemapValidator | null; answered?: NotModifiedSitemap },
): SitemapReadSummary {
  log.debug({ event: 'sitemap_unchanged', url: ref.url, depth: ref.depth }, 'unchanged since the previous run: not read');
  const etag = seen.answered?.etag ?? seen.previous?.etag ?? null;
  const lastModified = seen.answered?.lastModified ?? seen.previous?.lastModified ?? null;
  const validator = validatorToKeep({ ref, children: 0, problems: 0, etag, lastModified });
  const counts = { entries: 0, items: skip, children: 0, dropped: 0, drops: {}, invalidLastmod: 0, bytes: 0 };
  const unread = { format: null, truncated: false, problems: [], unchanged: true, document: null };
  return { url: ref.url, finalUrl: seen.finalUrl, depth: ref.depth, ...counts, ...unread, validator };
}

/** Re-throws a failure with the sitemap's depth and parent, logged where that context is known. */
function withContext(error: unknown, ref: SitemapRef): FactoryError {
  // The fetch layer, the parser and the limits throw FactoryErrors: anything else is a bug, never a network failure.
  const base = toFactoryError(error, 'internal', { url: ref.url });
  // The sitemap's own URL names the failure: a connect error only knows the origin, a redirect its last hop.
  const where = base.url && base.url !== ref.url ? ` (at ${printableUrl(base.url)})` : '';
  const wrapped = new FactoryError(base.kind, `${base.message}${where}`, {
    ...base.context,
    url: ref.url,
    depth: ref.depth,
    parent: ref.parent,
    cause: base,
  });
  const fields = { event: 'sitemap_failed', kind: wrapped.kind, url: ref.url, depth: ref.depth, parent: ref.parent };
  if (wrapped.kind === 'internal') log.error({ ...fields, err: error }, wrapped.message);
  else log.warn(fields, wrapped.message);
  return wrapped;
}

/** A redirect into a sitemap already read: the reader names the target, and the walk or job ends this read as a cycle. */
async function* declined(ref: SitemapRef, target: string): AsyncGenerator<SitemapReadEvent<never>, never> {
  log.debug({ event: 'redirect_declined', url: ref.url, target }, 'redirects to a sitemap already visited: not fetched');
  yield { type: 'redirected', finalUrl: target };
  throw new FactoryError('internal', `read on after its redirect into ${target} was declined`, { url: ref.url });
}

/** A dropped connection or a server-side hiccup: worth another attempt. Limits, parse errors and SSRF are final. */
function isTransient(error: FactoryError): boolean {
  if (error.kind === 'fetch_failed') return true;
  return error.kind === 'http_status' && RETRY_STATUSES.has(error.context.status ?? 0);
}

/** Between attempts at one sitemap: 200 ms, then 800 ms (the README's contract for the default 2 retries). */
const SITEMAP_RETRY_BACKOFF = { baseDelayMs: 200, maxDelayMs: Number.POSITIVE_INFINITY, growth: 4 };

const pause = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });

/** One attempt: fetch, stream-parse and hand out events; returns the summary. */
async function* readOnce<T>(
  ref: SitemapRef,
  options: WalkOptions,
  cursor: ReadCursor<T>,
  setup: ReadSitemapSetup<T> & { conditional: ConditionalRequest | null },
) {
  const request = sitemapRequestOptions(options, setup.signal);
  if (setup.followRedirect) request.followRedirect = setup.followRedirect;
  const opened = await (setup.open ?? openSitemapIfModified)(ref.url, request, setup.conditional);
  if (opened.url !== ref.url) yield { type: 'redirected' as const, finalUrl: opened.url };
  if (opened.notModified) return unchangedSummary(ref, setup.skip, { finalUrl: opened.url, previous: setup.previous ?? null, answered: opened });
  const parser = createSitemapParser({ sitemapUrl: opened.url, maxUrlLength: options.maxUrlLength });
  const start = new DocumentStart();
  let parsing = false;
  try {
    for await (const chunk of opened.bytes) {
      start.see(chunk);
      parsing = true;
      const items = parser.write(chunk);
      parsing = false;
      yield* cursor.take(items);
      if (cursor.full) break;
    }
  } catch (error) {
    // The bytes stopped coming (a cut, a reset, a truncated gzip; not a parser failure): their complete entries may be salvaged.
    if (!parsing) cursor.cutParser = parser;
    throw error;
  }
  if (!cursor.full) yield* cursor.take(parser.end());
  yield* cursor.flush();
  const summary = cursor.summary(opened, parser.stats, start.document(opened));
  log.debug({ event: 'sitemap_read', url: ref.url, depth: ref.depth, entries: summary.entries, bytes: summary.bytes }, 'sitemap read');
  return summary;
}

/**
 * Fetches and parses one sitemap, streaming: never more than one network chunk's items held at once
 * beyond the current batch. A transient failure is retried (`options.retries` times) from the last item
 * handed out, so nothing is lost or repeated; a final failure hands out the items read before it (a partial
 * batch included), then is thrown with depth and parent.
 */
export async function* readSitemap<T>(
  ref: SitemapRef,
  options: WalkOptions,
  setup: ReadSitemapSetup<T>,
): AsyncGenerator<SitemapReadEvent<T>, SitemapReadSummary> {
  const previous = setup.previous ?? null;
  const plan = fetchPlan(ref, previous);
  if (plan.type === 'skip') return unchangedSummary(ref, setup.skip, { finalUrl: ref.url, previous });
  let skip = setup.skip;
  for (let attempt = 1; ; attempt += 1) {
    const mapItems = setup.createMapper();
    const cursor = new ReadCursor(ref, options, { ...setup, skip, mapItems });
    try {
      return yield* readOnce(ref, options, cursor, { ...setup, skip, conditional: plan.conditional });
    } catch (error) {
      // Cancelled (a `break`, a stop, a budget): nothing failed, so nothing is logged or wrapped.
      if (setup.signal?.aborted) throw error;
      if (error instanceof RedirectDeclined) return yield* declined(ref, error.target);
      const failure = withContext(error, ref);
      if (attempt > options.retries || !isTransient(failure)) {
        // Nothing read is dropped: what this attempt read before the failure goes out first, then the failure.
        yield* cursor.salvage();
        throw failure;
      }
      skip = cursor.handedOut;
      log.info({ event: 'sitemap_retry', url: ref.url, attempt, skip, kind: failure.kind }, 'retrying sitemap');
      await pause(backoffDelayMs(SITEMAP_RETRY_BACKOFF, attempt), setup.signal);
    } finally {
      mapItems.release?.();
    }
  }
}
