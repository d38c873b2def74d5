import type { ParsedUrl } from '../types.js';
import { StringHashSet } from './hash-set.js';
import { hashPageKeys } from './page-key.js';

/**
 * Turns the entries of ONE sitemap into page URLs: the loc, then its hreflang alternates, each only the first
 * time its dedupe key (pageKey: scheme, host, default port and fragment normalised) is met in this sitemap.
 * The first spelling met is the one emitted. Dedupe is per sitemap, never per site: a site-wide set would grow
 * with the number of URLs.
 */
export class UrlExpander {
  private readonly seen = new StringHashSet();
  // Scratch for `expandAll`: each URL of the step and its hash pair (sized on first use: most sitemaps are small).
  private readonly urls: string[] = [];
  private hashes = new Uint32Array(0);

  /** The URLs this entry adds, in document order. */
  expand(entry: ParsedUrl): string[] {
    const out: string[] = [];
    this.expandAll([entry], out);
    return out;
  }

  /** Forgets every URL met, handing the dedupe set's memory on (the sitemap is read): the expander starts afresh. */
  clear(): void {
    this.seen.clear();
  }

  /**
   * The URLs these entries add, in document order, pushed onto `out`. Every URL is hashed first, then all are
   * probed in one loop: the set is too big to stay in cache, and independent probes let the misses overlap.
   */
  expandAll(entries: readonly ParsedUrl[], out: string[]): void {
    const urls = this.urls;
    for (const entry of entries) {
      urls.push(entry.loc);
      for (const alternate of entry.alternates) urls.push(alternate.href);
    }
    if (this.hashes.length < 2 * urls.length) this.hashes = new Uint32Array(4 * urls.length);
    const hashes = this.hashes;
    hashPageKeys(urls, hashes);
    const seen = this.seen;
    for (let i = 0; i < urls.length; i++) {
      if (seen.addHashed(hashes, i)) out.push(urls[i] as string);
    }
    urls.length = 0;
  }
}
