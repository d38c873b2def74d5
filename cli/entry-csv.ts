import type { SitemapEntry } from '../lib/index.js';
import { frequencyPriorityCache } from './frequency-priority.js';
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

// A row's changefreq and priority, with the commas around them.
const frequencyAndPriority = frequencyPriorityCache((changefreq, priority) => `,${csvField(changefreq)},${csvField(priority)},`);

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
