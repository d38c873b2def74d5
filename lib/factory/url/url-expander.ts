import type { ParsedUrl } from '../types.js';

/**
 * Turns the entries of ONE sitemap into page URLs: the loc, then its hreflang alternates not produced before.
 * Dedupe starts with the first entry that has alternates: until then every loc goes straight out (hashing every
 * URL of a plain sitemap cost 13% of a walk). From then on it remembers 53-bit hashes rather than strings, so a
 * 50,000-entry sitemap with five locales costs about 4 MB of Set; at these sizes a false "seen" is about one in a
 * billion. Dedupe is per sitemap, never per site: a site-wide set would grow with the number of URLs.
 */
export class UrlExpander {
  private seen: Set<number> | null = null;

  /** The URLs this entry adds, in document order. */
  expand(entry: ParsedUrl): string[] {
    if (this.seen === null) {
      if (entry.alternates.length === 0) return [entry.loc];
      this.seen = new Set();
    }
    const out: string[] = [];
    if (this.firstTime(entry.loc)) out.push(entry.loc);
    for (const alternate of entry.alternates) {
      if (this.firstTime(alternate.href)) out.push(alternate.href);
    }
    return out;
  }

  private firstTime(url: string): boolean {
    const seen = this.seen as Set<number>;
    const key = hash53(url);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  }
}

/** cyrb53: a fast, well-mixed 53-bit string hash (fits a JS number exactly). */
export function hash53(text: string, seed = 0): number {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ code, 2654435761);
    h2 = Math.imul(h2 ^ code, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}
