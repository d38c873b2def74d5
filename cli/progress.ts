/** Counters shown by the progress line. */
export interface ProgressCounts {
  urls: number;
  sitemaps: number;
  errors: number;
}

/** A one-line progress display on stderr, redrawn at most ten times a second; silent when disabled. */
export class ProgressLine {
  private lastDraw = 0;
  private readonly startedAt = Date.now();

  constructor(private readonly enabled: boolean) {}

  /** Redraws the line if enough time has passed (or always, with `force`). */
  update(counts: ProgressCounts, force = false): void {
    if (!this.enabled) return;
    const now = Date.now();
    if (!force && now - this.lastDraw < 100) return;
    this.lastDraw = now;
    const seconds = ((now - this.startedAt) / 1000).toFixed(1);
    const rate = Math.round(counts.urls / Math.max((now - this.startedAt) / 1000, 0.001));
    const line = `urls ${counts.urls.toLocaleString('en')} · sitemaps ${counts.sitemaps} · errors ${counts.errors} · ${seconds}s · ${rate.toLocaleString('en')}/s`;
    process.stderr.write(`\r\x1b[2K${line}`);
  }

  /** Leaves the last figures on screen and moves to a new line. */
  done(counts: ProgressCounts): void {
    this.update(counts, true);
    if (this.enabled) process.stderr.write('\n');
  }
}

/** Progress is shown on a terminal, or when asked for with --progress. */
export function progressWanted(flag: boolean): boolean {
  return flag || process.stderr.isTTY === true;
}
