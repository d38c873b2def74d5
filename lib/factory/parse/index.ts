/** Streaming sitemap parser: pure over bytes, never fetches. See README.md in this folder. */
export { createSitemapParser, parseSitemapBytes } from './sitemap-parser.js';
export type { DropCounts, DropReason, ParseStats, ParsedItem, ParserOptions, SitemapParser } from './types.js';
