import type { Writable } from 'node:stream';

/** Counters of a run, as events arrive: they only ever grow, so the line never goes backwards. */
export class RunCounts {
  urls = 0;
  sitemapsDone = 0;
  /** Sitemaps known so far: roots plus every child an index listed (at least the ones done). */
  sitemapsKnown = 0;
  errors = 0;
  /** Sitemaps not read because unchanged since the previous run (`--validators`). */
  unchanged = 0;
  readonly startedAt = Date.now();

  /** A sitemap was read (or found unchanged), listing `children` more. */
  sitemapRead(children: number, unchanged = false): void {
    this.sitemapsDone += 1;
    if (unchanged) this.unchanged += 1;
    this.sitemapsKnown = Math.max(this.sitemapsKnown + children, this.sitemapsDone);
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
  const rate = Math.round(counts.urls / Math.max(elapsed / 1000, 0.001));
  const known = Math.max(counts.sitemapsKnown, counts.sitemapsDone);
  const left = known - counts.sitemapsDone;
  const eta = counts.sitemapsDone > 0 && left > 0 ? ` · ETA ${seconds((elapsed / counts.sitemapsDone) * left)}` : '';
  return `sitemaps ${counts.sitemapsDone}/${known} · ${counts.urls.toLocaleString('en')} urls · ${counts.errors} errors · ${rate.toLocaleString('en')}/s · ${seconds(elapsed)}${eta}`;
}

/** A one-line progress display on stderr, redrawn at most ten times a second; silent when disabled. */
export class ProgressLine {
  private lastDraw = 0;
  private drawn = false;

  constructor(
    private readonly stderr: Writable,
    private readonly enabled: boolean,
  ) {}

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
    this.update(counts, true);
    if (this.enabled && !this.stderr.destroyed) this.stderr.write('\n');
  }
}
