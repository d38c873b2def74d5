import type { SitemapEntry } from '../lib/index.js';
import { csvField, type RowBytes } from './row-bytes.js';

const COMMA = 0x2c;

/**
 * Writes one `--format csv` row (no line end) into `rows`: url, lastmod, changefreq, priority, locale, source, each
 * field quoted as RFC 4180 asks when it holds a comma, a quote or a line break (only URLs ever do).
 */
export function writeCsvRow(rows: RowBytes, entry: SitemapEntry): void {
  const { lastmod, changefreq, priority, locale } = entry;
  rows.csvField(entry.loc);
  rows.byte(COMMA);
  if (lastmod !== null) rows.csvField(lastmod);
  rows.byte(COMMA);
  if (changefreq !== null) rows.bytes(changefreqBytes(changefreq));
  rows.byte(COMMA);
  if (priority !== null) rows.number(priority);
  rows.byte(COMMA);
  if (locale !== null) rows.csvField(locale);
  rows.bytes(sourceBytes(entry.source));
}

// changefreq is one of seven words: each one's field is encoded once (bounded: cleared when full).
const changefreqs = new Map<string, Uint8Array>();
function changefreqBytes(changefreq: string): Uint8Array {
  let bytes = changefreqs.get(changefreq);
  if (bytes === undefined) {
    if (changefreqs.size >= 64) changefreqs.clear();
    bytes = Buffer.from(csvField(changefreq), 'utf8');
    changefreqs.set(changefreq, bytes);
  }
  return bytes;
}

// Every row of a sitemap has its source: the field (with the comma before it) is encoded once per sitemap, not per row.
let lastSource: string | null = null;
let lastSourceBytes: Uint8Array = new Uint8Array(0);
function sourceBytes(source: string): Uint8Array {
  if (source !== lastSource) {
    lastSource = source;
    lastSourceBytes = Buffer.from(`,${csvField(source)}`, 'utf8');
  }
  return lastSourceBytes;
}
