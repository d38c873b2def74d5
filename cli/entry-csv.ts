import type { SitemapEntry } from '../lib/index.js';
import { csvField, type RowBytes } from './row-bytes.js';

const COMMA = 0x2c;

/**
 * Writes one `--format csv` row with its CRLF into `rows`: url, lastmod, changefreq, priority, locale, source, each
 * field quoted as RFC 4180 asks when it holds a comma, a quote or a line break (only URLs ever do).
 */
export function writeCsvRow(rows: RowBytes, entry: SitemapEntry): void {
  const { lastmod, locale } = entry;
  rows.csvField(entry.loc);
  rows.byte(COMMA);
  if (lastmod !== null) rows.csvField(lastmod);
  rows.bytes(frequencyAndPriority(entry.changefreq, entry.priority));
  if (locale !== null) rows.csvField(locale);
  rows.bytes(sourceBytes(entry.source));
}

// A sitemap's changefreqs (seven words) and priorities (a handful of values) make few pairs: each pair's fields (with
// the commas around them) are encoded once (bounded: cleared when full).
const frequencies = new Map<string | null, Map<number | null, Uint8Array>>();
function frequencyAndPriority(changefreq: string | null, priority: number | null): Uint8Array {
  let priorities = frequencies.get(changefreq);
  if (priorities === undefined) {
    if (frequencies.size >= 16) frequencies.clear();
    priorities = new Map();
    frequencies.set(changefreq, priorities);
  }
  let bytes = priorities.get(priority);
  if (bytes === undefined) {
    if (priorities.size >= 256) priorities.clear();
    bytes = Buffer.from(`,${csvField(changefreq)},${csvField(priority)},`, 'utf8');
    priorities.set(priority, bytes);
  }
  return bytes;
}

// Every row of a sitemap has its source: the field (with the comma before it and the line end) is encoded once per
// sitemap, not per row.
let lastSource: string | null = null;
let lastSourceBytes: Uint8Array = new Uint8Array(0);
function sourceBytes(source: string): Uint8Array {
  if (source !== lastSource) {
    lastSource = source;
    lastSourceBytes = Buffer.from(`,${csvField(source)}\r\n`, 'utf8');
  }
  return lastSourceBytes;
}
