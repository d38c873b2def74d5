import { ParseError } from '../../../core/errors.js';
import type { ParsedUrl } from '../../../core/types.js';
import { type ParseStats, type ParsedItem, type ParserOptions, createSitemapParser, parseSitemapBytes } from '../index.js';

/** Options most tests use: a sitemap on example.com and the default 2,048-byte loc limit. */
export const OPTIONS: ParserOptions = { sitemapUrl: 'https://example.com/sitemap.xml', maxUrlLength: 2048 };

/** Parses a whole document given as text (UTF-8) or bytes. */
export function parse(doc: string | Uint8Array, options: Partial<ParserOptions> = {}): { items: ParsedItem[]; stats: ParseStats } {
  return parseSitemapBytes(doc, { ...OPTIONS, ...options });
}

/** Parses `bytes` written as the pieces between `cuts` (sorted byte offsets). */
export function parseInPieces(bytes: Uint8Array, cuts: number[], options: Partial<ParserOptions> = {}): { items: ParsedItem[]; stats: ParseStats } {
  const parser = createSitemapParser({ ...OPTIONS, ...options });
  const items: ParsedItem[] = [];
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    items.push(...parser.write(bytes.subarray(from, cut)));
    from = cut;
  }
  items.push(...parser.end());
  return { items, stats: parser.stats };
}

/** The page entries among the items. */
export function pages(items: ParsedItem[]): ParsedUrl[] {
  return items.flatMap((item) => (item.type === 'url' ? [item.entry] : []));
}

/** The page locs among the items. */
export function locs(items: ParsedItem[]): string[] {
  return pages(items).map((entry) => entry.loc);
}

/** The child-sitemap locs among the items. */
export function children(items: ParsedItem[]): string[] {
  return items.flatMap((item) => (item.type === 'sitemap' ? [item.loc] : []));
}

/** The ParseError `run` throws; fails the test if it throws nothing or something else. */
export function parseErrorOf(run: () => unknown): ParseError {
  try {
    run();
  } catch (error) {
    if (error instanceof ParseError) return error;
    throw error;
  }
  throw new Error('expected a ParseError, nothing was thrown');
}

/** A urlset around the given `<url>` elements, with the usual namespace declarations. */
export function urlset(body: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"
        xmlns:xhtml="http://www.w3.org/1999/xhtml"
        xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"
        xmlns:video="http://www.google.com/schemas/sitemap-video/1.1"
        xmlns:news="http://www.google.com/schemas/sitemap-news/0.9">
${body}
</urlset>`;
}

/** Bytes of `text` in UTF-8. */
export function utf8(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}
