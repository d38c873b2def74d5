import { StringHashSet } from './hash-set.js';
import { hashPageKeys } from './page-key.js';

/**
 * The one dedupe every output of a walk goes through (page URLs, rich entries, job shard entries): the page keys
 * (pageKey: scheme and host lower-cased, default port and fragment dropped, empty path read as `/`) met so far in
 * ONE sitemap. Per sitemap, never per site: a site-wide set would grow with the number of URLs, which the design
 * forbids. A URL is emitted as its page key, so two spellings of one page never become two rows downstream.
 */
export class PageDedupe {
  private readonly seen = new StringHashSet();
  // Scratch, sized on first use (most sitemaps are small): each URL's hash pair and the verdicts of the last call.
  private hashes = new Uint32Array(0);
  private fresh = new Uint8Array(0);

  /**
   * Rewrites each URL to its page key, in place, and answers which are new to this sitemap: `result[i]` is 1 for
   * the first URL of its key (in this call's order, after every earlier call's), 0 for a repeat. The answer is
   * scratch, valid until the next call. All URLs are hashed first, then probed in one loop: the set is too big to
   * stay in cache, and independent probes let the misses overlap.
   */
  admit(urls: string[]): Uint8Array {
    const count = urls.length;
    if (this.hashes.length < 2 * count) this.hashes = new Uint32Array(4 * count);
    if (this.fresh.length < count) this.fresh = new Uint8Array(2 * count);
    const hashes = this.hashes;
    const fresh = this.fresh;
    hashPageKeys(urls, hashes, urls);
    const seen = this.seen;
    for (let i = 0; i < count; i++) fresh[i] = seen.addHashed(hashes, i) ? 1 : 0;
    return fresh;
  }

  /** Forgets every key (the sitemap is read), handing the set's memory on to the next sitemap's. */
  clear(): void {
    this.seen.clear();
  }
}
