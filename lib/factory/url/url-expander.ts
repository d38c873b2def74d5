import type { ParsedUrl } from '../types.js';
import { StringHashSet } from './hash-set.js';
import { pageKey } from './page-key.js';

/**
 * Turns the entries of ONE sitemap into page URLs: the loc, then its hreflang alternates, each only the first
 * time its dedupe key (pageKey: scheme, host, default port and fragment normalised) is met in this sitemap.
 * The first spelling met is the one emitted. Dedupe is per sitemap, never per site: a site-wide set would grow
 * with the number of URLs.
 */
export class UrlExpander {
  private readonly seen = new StringHashSet();

  /** The URLs this entry adds, in document order. */
  expand(entry: ParsedUrl): string[] {
    const out: string[] = [];
    this.expandInto(entry, out);
    return out;
  }

  /** `expand`, pushing onto `out` (a walk's pending batch) instead of a fresh array per entry. */
  expandInto(entry: ParsedUrl, out: string[]): void {
    const seen = this.seen;
    if (seen.add(pageKey(entry.loc))) out.push(entry.loc);
    for (const alternate of entry.alternates) {
      if (seen.add(pageKey(alternate.href))) out.push(alternate.href);
    }
  }
}
