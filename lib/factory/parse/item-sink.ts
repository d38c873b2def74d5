import type { ParsedUrl } from '../types.js';
import type { DropCounts, DropReason, ParsedItem } from './types.js';

/** Collects the items a chunk completes and counts everything kept or dropped. */
export class ItemSink {
  private items: ParsedItem[] = [];
  urls = 0;
  sitemaps = 0;
  readonly dropped: DropCounts = { tooLong: 0, relative: 0, badScheme: 0, malformed: 0 };

  /** Emits a page. */
  url(entry: ParsedUrl): void {
    this.items.push({ type: 'url', entry });
    this.urls += 1;
  }

  /** Emits a child sitemap of an index. */
  sitemap(loc: string, lastmod: string | null): void {
    this.items.push({ type: 'sitemap', loc, lastmod });
    this.sitemaps += 1;
  }

  /** Counts a dropped loc. */
  drop(reason: DropReason): void {
    this.dropped[reason] += 1;
  }

  /** The items collected since the last call, handing them over. */
  take(): ParsedItem[] {
    const out = this.items;
    this.items = [];
    return out;
  }
}

/** A page known only by its loc (text lines, feed items) with every optional field empty. */
export function bareEntry(loc: string, lastmod: string | null): ParsedUrl {
  return { loc, lastmod, changefreq: null, priority: null, alternates: [], images: [], videos: [], news: null };
}
