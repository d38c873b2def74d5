import type { ParsedUrl } from '../../core/types.js';
import type { DropCounts, DropReason, ParsedItem } from './types.js';

/** Collects the items a chunk completes and counts everything kept or dropped. */
export class ItemSink {
  private items: ParsedItem[] = [];
  urls = 0;
  sitemaps = 0;
  readonly dropped: DropCounts = { tooLong: 0, relative: 0, badScheme: 0, malformed: 0, controlCharacters: 0 };
  /** Date fields (`<lastmod>`, feed dates) that were not dates: read as null. */
  invalidLastmod = 0;
  /** Child sitemap locs dropped (counted in `dropped` too): the walk reports them, as it reports children it cannot key. */
  refusedChildren = 0;

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

  /** The first loc dropped for each reason, made safe to print (see dropExample). */
  readonly dropExamples: Partial<Record<DropReason, string>> = {};

  /** Counts a dropped loc (`loc`: as written, when there was one). */
  drop(reason: DropReason, loc: string | null = null): void {
    this.dropped[reason] += 1;
    if (loc !== null && this.dropExamples[reason] === undefined) this.dropExamples[reason] = dropExample(loc);
  }

  /** Counts a dropped child sitemap loc. */
  refuseChild(reason: DropReason, loc: string | null = null): void {
    this.drop(reason, loc);
    this.refusedChildren += 1;
  }

  /** The items collected since the last call, handing them over. */
  take(): ParsedItem[] {
    const out = this.items;
    this.items = [];
    return out;
  }
}

/**
 * The one empty list every entry without alternates, images or videos shares: most entries have none, and
 * three fresh arrays per URL were a measurable part of a walk's garbage. Frozen, so a caller that tries to
 * push into it fails loudly instead of changing every entry at once.
 */
export const NONE: never[] = Object.freeze([]) as unknown as never[];

/** A page known only by its loc (text lines, feed items) with every optional field empty. */
export function bareEntry(loc: string, lastmod: string | null): ParsedUrl {
  return { loc, lastmod, changefreq: null, priority: null, alternates: NONE, images: NONE, videos: NONE, news: null };
}

/** Longest example kept of a dropped loc: enough to recognise it, never a whole hostile document. */
const MAX_EXAMPLE_CHARS = 200;

/**
 * A dropped loc as an example to show: its first 200 characters, control characters percent-encoded (an encoded
 * newline must not split a line of output: the reason it was dropped may be that very character).
 */
export function dropExample(loc: string): string {
  return loc.slice(0, MAX_EXAMPLE_CHARS).replace(/[\u0000-\u001f\u007f]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
}
