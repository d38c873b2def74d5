import type { ParsedUrl } from '../../core/types.js';
import { PageDedupe } from './page-dedupe.js';

/**
 * Turns the entries of ONE sitemap into page URLs: the loc, then its hreflang alternates, each only the first
 * time its page key (PageDedupe) is met in this sitemap, and emitted as that key (the first spelling, normalised).
 */
export class UrlExpander {
  private readonly dedupe = new PageDedupe();
  // Scratch for `expandAll`: each URL of the step, rewritten to its page key by the dedupe.
  private readonly urls: string[] = [];

  /** The URLs this entry adds, in document order. */
  expand(entry: ParsedUrl): string[] {
    const out: string[] = [];
    this.expandAll([entry], out);
    return out;
  }

  /** Forgets every URL met, handing the dedupe set's memory on (the sitemap is read): the expander starts afresh. */
  clear(): void {
    this.dedupe.clear();
  }

  /** The URLs these entries add, in document order, pushed onto `out`. */
  expandAll(entries: readonly ParsedUrl[], out: string[]): void {
    const urls = this.urls;
    for (const entry of entries) {
      urls.push(entry.loc);
      for (const alternate of entry.alternates) urls.push(alternate.href);
    }
    const fresh = this.dedupe.admit(urls);
    for (let i = 0; i < urls.length; i++) if (fresh[i] === 1) out.push(urls[i] as string);
    urls.length = 0;
  }

  /**
   * One entry's URLs (its loc at 0, alternate `k` at `k + 1`) as page keys, each a string when new to this sitemap
   * or null when met before: for a caller that judges each URL by where it came from (a filter by locale).
   */
  expandPositions(entry: ParsedUrl): ReadonlyArray<string | null> {
    const urls = [entry.loc];
    for (const alternate of entry.alternates) urls.push(alternate.href);
    const fresh = this.dedupe.admit(urls);
    return urls.map((url, i) => (fresh[i] === 1 ? url : null));
  }
}
