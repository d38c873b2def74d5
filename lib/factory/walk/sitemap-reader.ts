import { FactoryError, toFactoryError } from '../errors.js';
import { openSitemap, type OpenSitemapOptions, type OpenedSitemap } from '../fetch/index.js';
import type { WalkOptions } from '../limits.js';
import { createSitemapParser, type ParsedItem, type ParseStats } from '../parse/index.js';
import { sitemapRequestOptions } from '../fetch/request-options.js';
import type { ParsedUrl, ReportedError, SitemapFormat, SitemapRef } from '../types.js';
import { createLogger } from '../../utils/logger.js';

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
  signal?: AbortSignal;
}

/** A read of one sitemap: where to start, and how each page becomes items (a fresh mapper per attempt). */
export interface ReadSitemapSetup<T> extends ReadSitemapContext {
  createMapper: () => ItemMapper<T>;
  /** How a sitemap's bytes are obtained: `openSitemap` (the network) unless a caller reads some from elsewhere (a local file). */
  open?: SitemapOpener;
}

/** Opens one sitemap for reading; the default is `openSitemap`. */
export type SitemapOpener = (url: string, options: OpenSitemapOptions) => Promise<OpenedSitemap>;

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
  children: number;
  dropped: number;
  /** `<lastmod>` values that were not W3C datetimes (read as null). */
  invalidLastmod: number;
  bytes: number;
  truncated: boolean;
  problems: ReportedError[];
}

/** Maps one parsed page to the items a walk emits for it (the entry itself, or its new URLs). */
export type ItemMapper<T> = (entry: ParsedUrl, ref: SitemapRef) => T[];

/** Counts, skips and cuts the parser's items for one sitemap; the limits of DESIGN are enforced here. */
class ReadCursor<T> {
  entries = 0;
  items = 0;
  children = 0;
  full = false;
  readonly problems: ReportedError[] = [];
  private pending: T[] = [];

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
    for (const item of parsed) {
      if (this.full) break;
      if (item.type === 'url') this.takeEntry(item.entry, events);
      else this.takeChild(item.loc, refs);
    }
    if (refs.length > 0) events.push({ type: 'children', refs });
    return events;
  }

  /** The last partial batch. */
  flush(): Array<SitemapReadEvent<T>> {
    const rest = this.pending;
    this.pending = [];
    return rest.length > 0 ? [{ type: 'items', items: rest }] : [];
  }

  private takeEntry(entry: ParsedUrl, events: Array<SitemapReadEvent<T>>): void {
    if (this.entries >= this.options.maxUrlsPerSitemap) {
      this.full = true;
      this.problem('too_many_urls', `more than ${this.options.maxUrlsPerSitemap} URLs: the first ${this.options.maxUrlsPerSitemap} kept`);
      return;
    }
    this.entries += 1;
    for (const item of this.context.mapItems(entry, this.ref)) {
      this.items += 1;
      if (this.items <= this.context.skip) continue;
      this.pending.push(item);
      if (this.pending.length >= this.context.batchSize) events.push(...this.flush());
    }
  }

  private takeChild(loc: string, refs: SitemapRef[]): void {
    this.children += 1;
    const depth = this.ref.depth + 1;
    if (this.children > this.options.maxChildrenPerIndex) {
      if (this.children === this.options.maxChildrenPerIndex + 1) {
        this.problem('too_many_children', `more than ${this.options.maxChildrenPerIndex} child sitemaps: the rest skipped`);
      }
      return;
    }
    if (depth > this.options.maxDepth) {
      if (!this.problems.some((problem) => problem.kind === 'too_deep')) {
        this.problem('too_deep', `children at depth ${depth} exceed maxDepth ${this.options.maxDepth}: skipped`);
      }
      return;
    }
    refs.push({ url: loc, depth, parent: this.ref.url });
  }

  private problem(kind: ReportedError['kind'], message: string): void {
    this.problems.push({ kind, url: this.ref.url, message, parent: this.ref.parent, depth: this.ref.depth });
    log.warn({ event: 'sitemap_limit', kind, url: this.ref.url, depth: this.ref.depth }, message);
  }

  summary(finalUrl: string, stats: ParseStats): SitemapReadSummary {
    if (stats.truncated && !this.full) this.problem('invalid_xml', `document ends before its root element closes: the ${this.entries} entries read are kept`);
    const dropped = stats.dropped.tooLong + stats.dropped.relative + stats.dropped.badScheme + stats.dropped.malformed;
    return {
      url: this.ref.url,
      finalUrl,
      format: stats.format,
      depth: this.ref.depth,
      entries: this.entries,
      items: this.items,
      children: this.children,
      dropped,
      invalidLastmod: stats.invalidLastmod,
      bytes: stats.bytes,
      truncated: this.full,
      problems: this.problems,
    };
  }
}

/** Re-throws a failure with the sitemap's depth and parent, logged where that context is known. */
function withContext(error: unknown, ref: SitemapRef): FactoryError {
  // The fetch layer, the parser and the limits throw FactoryErrors: anything else is a bug, never a network failure.
  const base = toFactoryError(error, 'internal', { url: ref.url });
  // The sitemap's own URL names the failure: a connect error only knows the origin, a redirect its last hop.
  const where = base.url && base.url !== ref.url ? ` (at ${base.url})` : '';
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

/** A dropped connection or a server-side hiccup: worth another attempt. Limits, parse errors and SSRF are final. */
function isTransient(error: FactoryError): boolean {
  if (error.kind === 'fetch_failed') return true;
  return error.kind === 'http_status' && RETRY_STATUSES.has(error.context.status ?? 0);
}

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
async function* readOnce<T>(ref: SitemapRef, options: WalkOptions, cursor: ReadCursor<T>, setup: ReadSitemapSetup<T>) {
  const opened = await (setup.open ?? openSitemap)(ref.url, sitemapRequestOptions(options, setup.signal));
  if (opened.url !== ref.url) yield { type: 'redirected' as const, finalUrl: opened.url };
  const parser = createSitemapParser({ sitemapUrl: opened.url, maxUrlLength: options.maxUrlLength });
  for await (const chunk of opened.bytes) {
    yield* cursor.take(parser.write(chunk));
    if (cursor.full) break;
  }
  if (!cursor.full) yield* cursor.take(parser.end());
  yield* cursor.flush();
  const summary = cursor.summary(opened.url, parser.stats);
  log.debug({ event: 'sitemap_read', url: ref.url, depth: ref.depth, entries: summary.entries, bytes: summary.bytes }, 'sitemap read');
  return summary;
}

/**
 * Fetches and parses one sitemap, streaming: never more than one network chunk's items held at once
 * beyond the current batch. A transient failure is retried (`options.retries` times) from the last item
 * handed out, so nothing is lost or repeated; a final failure is thrown with depth and parent.
 */
export async function* readSitemap<T>(
  ref: SitemapRef,
  options: WalkOptions,
  setup: ReadSitemapSetup<T>,
): AsyncGenerator<SitemapReadEvent<T>, SitemapReadSummary> {
  let skip = setup.skip;
  for (let attempt = 1; ; attempt += 1) {
    const cursor = new ReadCursor(ref, options, { ...setup, skip, mapItems: setup.createMapper() });
    try {
      return yield* readOnce(ref, options, cursor, setup);
    } catch (error) {
      // Cancelled (a `break`, a stop, a budget): nothing failed, so nothing is logged or wrapped.
      if (setup.signal?.aborted) throw error;
      const failure = withContext(error, ref);
      if (attempt > options.retries || !isTransient(failure)) throw failure;
      skip = cursor.handedOut;
      log.info({ event: 'sitemap_retry', url: ref.url, attempt, skip, kind: failure.kind }, 'retrying sitemap');
      await pause(200 * 4 ** (attempt - 1), setup.signal);
    }
  }
}
