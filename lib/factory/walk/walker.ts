import { addLocDrops, type LocDrops } from '../../core/loc-drops.js';
import { setMaxListeners } from 'node:events';
import { FactoryError, toFactoryError } from '../../core/errors.js';
import { Frontier, urlLimitError } from '../../core/frontier.js';
import type { WalkOptions } from '../../core/limits.js';
import { SignalQueue } from './signal-queue.js';
import { readSitemap, type ItemMapper, type SitemapOpener, type SitemapReadEvent, type SitemapReadSummary } from './sitemap-reader.js';
import type { SitemapDocument } from './sitemap-document.js';
import type { ActiveSitemap, ReportedError, SitemapFormat, SitemapRef, SitemapValidator, WalkState, WalkSummary } from '../../core/types.js';
import { duplicateChildren, redirectTarget, reportedError, sitemapKey, sitemapLimitError, type ChildCounts } from './walk-policy.js';
import { createLogger } from '../../utils/logger.js';
import { validatorKey } from './validator-log.js';

const log = createLogger('factory:walker');

/** Items per batch: the unit of streaming, of job shards and of resume points. */
export const BATCH_SIZE = 1000;

/**
 * Items a reader hands over at a time. Smaller than a batch so items reach the consumer before V8's next
 * scavenge: items held across several readers' chunks were promoted to the old space as garbage-to-be.
 */
const READER_STEP = 250;

/** Everything a walk reports, in order: batches of items, each sitemap read, each failure, and a summary last. */
export type WalkEvent<T> =
  | { type: 'batch'; items: T[] }
  | {
      type: 'sitemap';
      url: string;
      depth: number;
      parent: string | null;
      format: SitemapFormat | null;
      entries: number;
      children: number;
      dropped: number;
      /** The locs dropped, by reason (`relative`, `tooLong`, ...), each with its count and the first one. */
      drops: LocDrops;
      /** `<lastmod>` values that were not W3C datetimes, read as null. */
      invalidLastmod: number;
      /** Children listed that were already visited (listed twice, by another index, or a variant of an ancestor): not read again. */
      duplicates: number;
      bytes: number;
      /** Not read: unchanged since the previous run (`previous` validators); its URLs are the previous run's. */
      unchanged: boolean;
      /** What the next run should be given for it (keyed by the sitemap's identity key), or null: read it whole next time. */
      validator: SitemapValidator | null;
      /** How it was served and how its document starts (null when unchanged, not read): what the findings judge. */
      document: SitemapDocument | null;
    }
  | ({ type: 'error' } & ReportedError)
  /** The caller's `maxUrls` was reached: the walk stopped there (a limit, not an error of the site). */
  | { type: 'limit'; limit: 'maxUrls'; value: number; message: string }
  /** A sitemap whose final URL (after redirects) is one already visited: `url` is not read, `target` was. */
  | { type: 'cycle'; url: string; target: string; parent: string | null; depth: number }
  | ({ type: 'summary' } & WalkSummary);

/** How a walk starts: fresh from root sitemaps, or resumed from a saved state. */
export type WalkStart = { roots: string[] } | { state: WalkState };

/** Options of one walk beyond the limits: how each page becomes items, and cancellation. */
export interface WalkSetup<T> {
  /** Called once per sitemap, so a mapper may keep per-sitemap state (dedupe); resume replays skipped entries through it. */
  createMapper: () => ItemMapper<T>;
  signal?: AbortSignal;
  /** Where sitemap bytes come from (default: the network). */
  open?: SitemapOpener;
  /** The previous run's validators by sitemap identity key: unchanged sitemaps are skipped or asked for conditionally. */
  previous?: ReadonlyMap<string, SitemapValidator>;
}

interface Slot<T> {
  ref: SitemapRef;
  iterator: AsyncGenerator<SitemapReadEvent<T>, SitemapReadSummary>;
  /** Items of this sitemap in batches already yielded: where a resume starts. */
  emitted: number;
  /** Items of this sitemap in the open batch. */
  queued: number;
  /** The identity keys of where it redirected (each hop), once added to the visited set by this read. */
  redirectKeys: Set<string>;
  /** Its children offered to the visited set; `added` includes those queued before a resume. */
  children: ChildCounts;
  /** It handed out items or listed children (in this read or before a resume): if it fails now, what it yielded stands. */
  yielded: boolean;
}

type Step<T> = { slot: Slot<T>; result: IteratorResult<SitemapReadEvent<T>, SitemapReadSummary> } | { slot: Slot<T>; error: unknown };

/**
 * Walks sitemap trees: up to `concurrency` sitemaps read at once, items merged into batches of BATCH_SIZE,
 * children followed at any depth through a visited set of identity keys. After every yielded batch,
 * `state()` is a consistent resume point: memory holds one parser step per sitemap in flight plus one batch.
 */
export class SitemapWalk<T> {
  private frontier: SitemapRef[] = [];
  private head = 0;
  private readonly resumeQueue: ActiveSitemap[] = [];
  private readonly frontierState: Frontier;
  private readonly live = new Set<Slot<T>>();
  private readonly parked = new Set<Slot<T>>();
  private readonly steps = new SignalQueue<Step<T>>();
  private batch: T[] = [];
  private sitemapsDone = 0;
  private readonly counts: { sitemaps: number; errors: number; dropped: number; drops: LocDrops; limitReached: string | null } = {
    sitemaps: 0,
    errors: 0,
    dropped: 0,
    drops: {},
    limitReached: null,
  };
  /** Some root read whole or yielded something: the run can no longer fail on its roots, so their failures are reported. */
  private rootStands = false;
  /** Failures of roots that yielded nothing: reported once a root stands, else the first one fails the run. */
  private readonly deferredRootErrors: FactoryError[] = [];
  private sitemapLimitReported = false;
  private readonly abort = new AbortController();
  private readonly signal: AbortSignal;

  constructor(
    private readonly options: WalkOptions,
    start: WalkStart,
    private readonly setup: WalkSetup<T>,
  ) {
    this.signal = setup.signal ? AbortSignal.any([setup.signal, this.abort.signal]) : this.abort.signal;
    // Every request in flight listens on this signal (deadline, retry pause): more than Node's default ten.
    setMaxListeners(4 * options.concurrency + 8, this.signal);
    this.frontierState = new Frontier(options, { roots: 0, rootsFailed: 0, urlsFound: 0 });
    if ('state' in start) this.restore(start.state);
    else this.startRoots(start.roots);
  }

  // Root URLs that cannot be keyed are reported at once, as a job reports them when it is created.
  private startRoots(urls: string[]): void {
    const counts = { offered: 0, rejected: 0, added: 0 };
    this.initialReports.push(
      ...this.enqueue(
        urls.map((url) => ({ url, depth: 0, parent: null })),
        counts,
      ),
    );
    this.frontierState.addRoots(counts.added);
  }

  private readonly initialReports: Array<WalkEvent<T>> = [];

  /** A resume point: valid between batches (after each yielded `batch` event). */
  state(): WalkState {
    const reading = [...this.live, ...this.parked].map((slot) => ({ ...slot.ref, emitted: slot.emitted, added: slot.children.added }));
    const { roots, urlsFound } = this.frontierState.counts;
    return {
      frontier: this.frontier.slice(this.head),
      active: [...reading, ...this.resumeQueue],
      visited: [...this.frontierState.visited],
      sitemapsDone: this.sitemapsDone,
      urlsEmitted: urlsFound,
      roots,
      failedRoots: this.deferredRootErrors.map((error) => reportedError(error, { url: error.url ?? '', depth: 0, parent: null })),
    };
  }

  /** Runs the walk; breaking out of the loop stops every fetch in flight. */
  async *events(): AsyncGenerator<WalkEvent<T>> {
    const startedAt = Date.now();
    try {
      yield* this.initialReports.splice(0);
      this.fill();
      while (this.live.size > 0 && !this.urlLimitReached()) {
        const step = await this.steps.shift();
        // Cancelled: reads cut short are not failures. Stop where the last batch left `state()`, and say why.
        this.throwIfCancelled();
        yield* this.handle(step);
        this.fill();
      }
      this.throwIfCancelled();
      if (this.batch.length > 0) yield this.commitBatch();
      if (this.frontierState.allRootsFailed) yield* this.failOnRoots();
      yield* this.releaseDeferred();
      yield { type: 'summary', urls: this.frontierState.counts.urlsFound, ...this.counts, drops: { ...this.counts.drops }, durationMs: Date.now() - startedAt };
    } finally {
      await this.closeAll();
    }
  }

  private throwIfCancelled(): void {
    const signal = this.setup.signal;
    if (signal?.aborted) throw signal.reason ?? new Error('walk cancelled');
  }

  private restore(state: WalkState): void {
    for (const key of state.visited) this.frontierState.visited.add(key);
    this.resumeQueue.push(...state.active);
    const activeUrls = new Set(state.active.map((ref) => ref.url));
    this.frontier = state.frontier.filter((ref) => !activeUrls.has(ref.url));
    this.sitemapsDone = state.sitemapsDone;
    const failedRoots = state.failedRoots ?? [];
    const counts = this.frontierState.counts;
    // A state saved before roots were counted: the roots it still names are the ones that can fail the run.
    counts.roots = state.roots ?? [...state.frontier, ...state.active].filter((ref) => ref.depth === 0).length + failedRoots.length;
    counts.rootsFailed = failedRoots.length;
    counts.urlsFound = state.urlsEmitted;
    for (const failed of failedRoots) {
      this.deferredRootErrors.push(
        new FactoryError(failed.kind, failed.message, {
          url: failed.url,
          depth: 0,
          parent: null,
          ...(failed.status === undefined ? {} : { status: failed.status }),
        }),
      );
    }
  }

  private urlLimitReached(): boolean {
    return this.frontierState.urlAllowance(1) === 0;
  }

  /** Starts readers until `concurrency` are in flight: resumed sitemaps first, then the frontier in order. */
  private fill(): void {
    while (this.live.size < this.options.concurrency) {
      const resumed = this.resumeQueue.shift();
      const ref = resumed ?? this.frontier[this.head];
      if (!ref) return;
      if (!resumed) this.advanceFrontier();
      const { url, depth, parent, lastmod } = ref;
      const resume = { emitted: resumed?.emitted ?? 0, added: resumed?.added ?? 0 };
      this.startReader(lastmod === undefined ? { url, depth, parent } : { url, depth, parent, lastmod }, resume);
    }
  }

  private advanceFrontier(): void {
    this.head += 1;
    // Compact now and then so a long walk does not keep every finished ref alive.
    if (this.head > 1024 && this.head * 2 > this.frontier.length) {
      this.frontier = this.frontier.slice(this.head);
      this.head = 0;
    }
  }

  private startReader(ref: SitemapRef, resume: { emitted: number; added: number }): void {
    const iterator = readSitemap(ref, this.options, {
      skip: resume.emitted,
      batchSize: READER_STEP,
      handOutEachStep: true,
      createMapper: this.setup.createMapper,
      signal: this.signal,
      previous: this.previousOf(ref),
      followRedirect: (url) => !this.isSeenTarget(slot, url),
      ...(this.setup.open ? { open: this.setup.open } : {}),
    });
    const yielded = resume.emitted > 0 || resume.added > 0;
    const slot: Slot<T> = {
      ref,
      iterator,
      emitted: resume.emitted,
      queued: 0,
      children: { offered: 0, rejected: 0, added: resume.added },
      yielded,
      redirectKeys: new Set(),
    };
    this.live.add(slot);
    this.pull(slot);
  }

  private previousOf(ref: SitemapRef): SitemapValidator | null {
    const previous = this.setup.previous;
    if (previous === undefined || previous.size === 0) return null;
    const key = validatorKey(ref.url);
    return key === null ? null : (previous.get(key) ?? null);
  }

  private pull(slot: Slot<T>): void {
    slot.iterator.next().then(
      (result) => this.steps.push({ slot, result }),
      (error: unknown) => this.steps.push({ slot, error }),
    );
  }

  private *handle(step: Step<T>): Generator<WalkEvent<T>> {
    const { slot } = step;
    if ('error' in step) return yield* this.finish(slot, null, step.error);
    if (step.result.done) return yield* this.finish(slot, step.result.value, null);
    const event = step.result.value;
    if (event.type === 'redirected' && this.isSeenTarget(slot, event.finalUrl)) return yield* this.dropRedirected(slot, event.finalUrl);
    if (event.type === 'items') yield* this.addItems(slot, event.items);
    else if (event.type === 'children') yield* this.addChildren(slot, event.refs);
    if (!this.urlLimitReached()) this.pull(slot);
  }

  /** True when a redirect (any hop) lands on a sitemap already queued or read; else the target joins the visited set. */
  private isSeenTarget(slot: Slot<T>, url: string): boolean {
    const target = redirectTarget(slot.ref, url);
    // A retried read redirects again to the keys it added itself.
    if (target === null || slot.redirectKeys.has(target.key)) return false;
    if (this.frontierState.visit(target.key) === 'seen') return true;
    slot.redirectKeys.add(target.key);
    return false;
  }

  /** A sitemap that redirects into one already read (or queued) is not read twice: it ends here as a reported cycle. */
  private *dropRedirected(slot: Slot<T>, finalUrl: string): Generator<WalkEvent<T>> {
    this.live.delete(slot);
    if (slot.queued > 0) this.parked.add(slot);
    else this.sitemapsDone += 1;
    void slot.iterator.return(undefined as never).catch(() => undefined);
    log.info(
      { event: 'sitemap_cycle', url: slot.ref.url, target: finalUrl, parent: slot.ref.parent },
      'redirects to a sitemap already visited: not read again',
    );
    yield { type: 'cycle', url: slot.ref.url, target: finalUrl, parent: slot.ref.parent, depth: slot.ref.depth };
  }

  /** Adds items to the open batch, yielding each batch as it fills (and the last one at the URL limit, with its report). */
  private *addItems(slot: Slot<T>, items: T[]): Generator<WalkEvent<T>> {
    if (items.length > 0) yield* this.markYielded(slot);
    let offset = 0;
    while (offset < items.length) {
      const room = Math.min(BATCH_SIZE - this.batch.length, this.frontierState.urlAllowance(items.length - offset));
      if (room === 0) return;
      const taken = items.slice(offset, offset + room);
      for (const item of taken) this.batch.push(item);
      slot.queued += taken.length;
      offset += taken.length;
      const limitReached = this.frontierState.addUrls(taken.length);
      if (this.batch.length >= BATCH_SIZE || limitReached) yield this.commitBatch();
      if (limitReached) yield this.limitEvent();
    }
  }

  // The caller's maxUrls reached: said as a limit, not counted as an error (the site did nothing wrong).
  private limitEvent(): WalkEvent<T> {
    const { message } = urlLimitError(this.frontierState.urlLimit);
    this.counts.limitReached = message;
    return { type: 'limit', limit: 'maxUrls', value: this.frontierState.urlLimit, message };
  }

  /** Hands the open batch out and moves every contributing sitemap's offset past it. */
  private commitBatch(): WalkEvent<T> {
    const items = this.batch;
    this.batch = [];
    for (const slot of [...this.live, ...this.parked]) {
      slot.emitted += slot.queued;
      slot.queued = 0;
    }
    this.sitemapsDone += this.parked.size;
    this.parked.clear();
    return { type: 'batch', items };
  }

  /** Children found in an index: they count as something yielded, then are followed if new. */
  private *addChildren(slot: Slot<T>, refs: SitemapRef[]): Generator<WalkEvent<T>> {
    if (refs.length > 0) yield* this.markYielded(slot);
    yield* this.enqueue(refs, slot.children);
  }

  /** Follows sitemaps not seen before (by identity key), within the walk's sitemap limit, counting into the index's `counts`; returns what to report. */
  private enqueue(refs: SitemapRef[], counts: ChildCounts = { offered: 0, rejected: 0, added: 0 }): Array<WalkEvent<T>> {
    const reports: Array<WalkEvent<T>> = [];
    for (const ref of refs) {
      const keyed = sitemapKey(ref);
      if ('error' in keyed) {
        reports.push(this.countError({ type: 'error', ...keyed.error }));
        continue;
      }
      const decision = this.frontierState.admit(keyed.key);
      counts.offered += 1;
      if (decision === 'seen') {
        log.debug({ event: 'sitemap_seen', url: ref.url, parent: ref.parent }, 'already visited: counted as a duplicate');
      } else if (decision === 'over_limit') {
        counts.rejected += 1;
        if (!this.sitemapLimitReported) reports.push(this.countError({ type: 'error', ...sitemapLimitError(ref, this.options.maxSitemaps, null) }));
        this.sitemapLimitReported = true;
      } else {
        counts.added += 1;
        this.frontier.push(ref);
      }
    }
    return reports;
  }

  /** A sitemap ended (read or failed): report it and retire it once its items have all been yielded. */
  private *finish(slot: Slot<T>, summary: SitemapReadSummary | null, error: unknown): Generator<WalkEvent<T>> {
    this.live.delete(slot);
    if (slot.queued > 0) this.parked.add(slot);
    else this.sitemapsDone += 1;
    if (summary) {
      if (slot.ref.depth === 0) yield* this.rootStood();
      this.counts.sitemaps += 1;
      this.counts.dropped += summary.dropped;
      addLocDrops(this.counts.drops, summary.drops);
      const { url, depth, format, entries, children, dropped, drops, invalidLastmod, bytes, unchanged, validator, document } = summary;
      const duplicates = duplicateChildren(slot.children);
      yield {
        type: 'sitemap',
        url,
        depth,
        parent: slot.ref.parent,
        format,
        entries,
        children,
        dropped,
        drops,
        invalidLastmod,
        duplicates,
        bytes,
        unchanged,
        validator,
        document,
      };
      for (const problem of summary.problems) yield this.countError({ type: 'error', ...problem });
      return;
    }
    const failure = toFactoryError(error, 'internal', slot.ref);
    if (this.frontierState.failed(slot.ref.depth, slot.yielded) === 'reported' || this.rootStands) yield this.reportError(failure, slot.ref);
    else this.deferredRootErrors.push(failure);
  }

  private *markYielded(slot: Slot<T>): Generator<WalkEvent<T>> {
    if (slot.yielded) return;
    slot.yielded = true;
    if (slot.ref.depth === 0) yield* this.rootStood();
  }

  /** Every root failed having yielded nothing: the others are reported, the first fails the walk (as a job records them all). */
  private *failOnRoots(): Generator<WalkEvent<T>> {
    const [first, ...others] = this.deferredRootErrors.splice(0);
    if (first === undefined) return;
    for (const error of others) yield this.reportError(error, { url: error.url ?? '', depth: 0, parent: null });
    throw first;
  }

  /** A root read whole or yielded something: the run cannot fail on its roots any more. */
  private *rootStood(): Generator<WalkEvent<T>> {
    if (this.rootStands) return;
    this.rootStands = true;
    yield* this.releaseDeferred();
  }

  /** Failures of roots that yielded nothing wait until a root stands: if none does, the first one is thrown instead. */
  private *releaseDeferred(): Generator<WalkEvent<T>> {
    for (const error of this.deferredRootErrors.splice(0)) yield this.reportError(error, { url: error.url ?? '', depth: 0, parent: null });
  }

  private reportError(error: FactoryError, ref: SitemapRef): WalkEvent<T> {
    return this.countError({ type: 'error', ...reportedError(error, ref) });
  }

  private countError(event: WalkEvent<T> & { type: 'error' }): WalkEvent<T> {
    this.counts.errors += 1;
    return event;
  }

  private async closeAll(): Promise<void> {
    // The live readers stay listed: after a cancel or an early break, state() still names them with their offsets.
    const open = [...this.live];
    // return() waits for a pending next(), so the fetches in flight are aborted first; errors on the way out are moot.
    this.abort.abort();
    await Promise.all(open.map((slot) => slot.iterator.return(undefined as never).catch(() => undefined)));
  }
}
