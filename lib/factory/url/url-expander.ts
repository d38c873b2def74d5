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
    const seen = this.seen;
    const out = seen.add(pageKey(entry.loc)) ? [entry.loc] : [];
    for (const alternate of entry.alternates) {
      if (seen.add(pageKey(alternate.href))) out.push(alternate.href);
    }
    return out;
  }

  /** Forgets every URL met, handing the dedupe set's memory on (the sitemap is read): the expander starts afresh. */
  clear(): void {
    this.seen.clear();
  }
}
