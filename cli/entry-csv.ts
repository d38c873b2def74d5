import type { SitemapEntry } from '../lib/index.js';
import type { RowBytes } from './row-bytes.js';

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
  if (changefreq !== null) rows.csvField(changefreq);
  rows.byte(COMMA);
  if (priority !== null) rows.number(priority);
  rows.byte(COMMA);
  if (locale !== null) rows.csvField(locale);
  rows.byte(COMMA);
  rows.csvField(entry.source);
}
