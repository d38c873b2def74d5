import type { ParsedUrl, SitemapFormat } from '../../core/types.js';

/** What the parser needs to know about the document it reads; it never fetches anything itself. */
export interface ParserOptions {
  /** URL the bytes came from: base for relative child-sitemap and feed locs, and error context. */
  sitemapUrl: string;
  /** Longest loc kept, in UTF-8 bytes; longer ones are dropped and counted as `tooLong`. */
  maxUrlLength: number;
}

/** One thing a sitemap lists: a page (urlset `<url>`, text line, RSS item, Atom entry) or a child sitemap. */
export type ParsedItem = { type: 'url'; entry: ParsedUrl } | { type: 'sitemap'; loc: string; lastmod: string | null };

/** Locs dropped per reason, so no URL disappears silently. */
export interface DropCounts {
  tooLong: number;
  relative: number;
  badScheme: number;
  malformed: number;
  /** A C0 control character or DEL inside the loc (an encoded newline would split a line of output in two). */
  controlCharacters: number;
}

/** Why a loc was dropped: a key of DropCounts. */
export type DropReason = keyof DropCounts;

/** Running totals of one parse. */
export interface ParseStats {
  /** Sniffed from the bytes; null until the root element (or first text line) has been seen. */
  format: SitemapFormat | null;
  urls: number;
  sitemaps: number;
  dropped: DropCounts;
  /** The first loc dropped for each reason that dropped any, safe to print. */
  dropExamples: Partial<Record<DropReason, string>>;
  /** `<lastmod>` values (of pages and child sitemaps) and feed dates that were not W3C datetimes: read as null. */
  invalidLastmod: number;
  /** Child sitemap locs dropped (also counted in `dropped`): not http(s), malformed or too long, so never fetched. */
  refusedChildren: number;
  /** Bytes written so far. */
  bytes: number;
  /** The XML ended before its root element closed (a cut download or file): what was read is kept. */
  truncated: boolean;
}

/** A push parser over the bytes of one sitemap: feed chunks, collect the items each chunk completes. */
export interface SitemapParser {
  /** Items completed by this chunk, in document order. */
  write(chunk: Uint8Array): ParsedItem[];
  /** Flushes the last items; throws a ParseError if the document is not a sitemap at all. */
  end(): ParsedItem[];
  /** A snapshot of the totals so far. */
  readonly stats: ParseStats;
}
