import { addLocDrops, type LocDrops } from '../lib/index.js';
import type { Writable } from 'node:stream';

/** Counters of a run, as events arrive: they only ever grow, so the line never goes backwards. */
export class RunCounts {
  /** URLs handed out (written). */
  urls = 0;
  /** URLs found as sitemaps are read, ahead of `urls` (which moves a batch of a thousand at a time). */
  found = 0;
  sitemapsDone = 0;
  /** Sitemaps known so far: roots plus every child an index listed (at least the ones done). */
  sitemapsKnown = 0;
  errors = 0;
  /** Sitemaps not read because unchanged since the previous run (`--validators`). */
  unchanged = 0;
  /** The locs the sitemaps read dropped, by reason. */
  readonly drops: LocDrops = {};
  readonly startedAt = Date.now();

  /** A sitemap was read (or found unchanged), listing `children` more that the walk will read, having dropped `drops`. */
  sitemapRead(children: number, unchanged = false, drops: LocDrops = {}): void {
    addLocDrops(this.drops, drops);
    this.sitemapsDone += 1;
    if (unchanged) this.unchanged += 1;
    // This sitemap is known even when nothing listed it (a root): its children come on top of it.
    this.sitemapsKnown = Math.max(this.sitemapsKnown, this.sitemapsDone) + children;
  }

  /** A sitemap was not read: it redirected into one already read (a `cycle`). */
  sitemapSkipped(): void {
    this.sitemapsDone += 1;
    this.sitemapsKnown = Math.max(this.sitemapsKnown, this.sitemapsDone);
  }

  /** What the progress line shows: the URLs found so far, never fewer than those written. */
  urlsSoFar(): number {
    return Math.max(this.found, this.urls);
  }

  elapsedMs(): number {
    return Date.now() - this.startedAt;
  }
}

function seconds(ms: number): string {
  return ms < 60_000 ? `${(ms / 1000).toFixed(1)}s` : `${Math.floor(ms / 60_000)}m${Math.round((ms % 60_000) / 1000)}s`;
}

/** `sitemaps 3/10 · 1,500 urls · 2 errors · 3,000/s · 1.2s · ETA 2.0s` (ETA once something is known to be left). */
export function progressText(counts: RunCounts): string {
  const elapsed = counts.elapsedMs();
  const urls = counts.urlsSoFar();
  const rate = Math.round(urls / Math.max(elapsed / 1000, 0.001));
  const known = Math.max(counts.sitemapsKnown, counts.sitemapsDone);
  const left = known - counts.sitemapsDone;
  const eta = counts.sitemapsDone > 0 && left > 0 ? ` · ETA ${seconds((elapsed / counts.sitemapsDone) * left)}` : '';
  return `sitemaps ${counts.sitemapsDone}/${known} · ${urls.toLocaleString('en')} urls · ${counts.errors} errors · ${rate.toLocaleString('en')}/s · ${seconds(elapsed)}${eta}`;
}

/**
 * Children of a `sitemap` event the walk will read: none past maxDepth, at most maxChildrenPerIndex (the reader
 * skips the rest), less those already visited (`duplicates`).
 */
export function childrenToRead(
  event: { children: number; duplicates: number; depth: number },
  limits: { maxChildrenPerIndex: number; maxDepth: number },
): number {
  if (event.depth + 1 > limits.maxDepth) return 0;
  return Math.max(0, Math.min(event.children, limits.maxChildrenPerIndex) - event.duplicates);
}

/** How often the line is redrawn while nothing happens (a slow sitemap): time and rate keep moving. */
const TICK_MS = 250;

/** A one-line progress display on stderr, redrawn at most ten times a second; silent when disabled. */
export class ProgressLine {
  private lastDraw = 0;
  private drawn = false;
  private ticker: NodeJS.Timeout | null = null;

  constructor(
    private readonly stderr: Writable,
    private readonly enabled: boolean,
  ) {}

  /** Redraws `counts` every TICK_MS until `done`, so the line moves while the walk waits on the network. */
  start(counts: RunCounts): void {
    if (!this.enabled || this.ticker !== null) return;
    this.ticker = setInterval(() => this.update(counts), TICK_MS);
    this.ticker.unref();
  }

  /** Redraws the line if enough time has passed (or always, with `force`). */
  update(counts: RunCounts, force = false): void {
    if (!this.enabled || this.stderr.destroyed) return;
    const now = Date.now();
    if (!force && now - this.lastDraw < 100) return;
    this.lastDraw = now;
    this.drawn = true;
    this.stderr.write(`\r\x1b[2K${progressText(counts)}`);
  }

  /** Moves off the progress line before other stderr output. */
  clear(): void {
    if (this.drawn && !this.stderr.destroyed) this.stderr.write('\r\x1b[2K');
  }

  /** Leaves the last figures on screen and moves to a new line. */
  done(counts: RunCounts): void {
    if (this.ticker !== null) clearInterval(this.ticker);
    this.ticker = null;
    this.update(counts, true);
    if (this.enabled && !this.stderr.destroyed) this.stderr.write('\n');
  }
}
