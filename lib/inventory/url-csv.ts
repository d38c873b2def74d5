import type { UrlRow } from './schemas.js';

/**
 * The columns of a CSV export of a site's URLs, in order, as the header names them: the six of `walk --format csv`
 * first, under the same names (one CSV shape everywhere), then what the inventory knows beside them.
 */
const URL_CSV_FIELDS = [
  ['url', 'url'],
  ['lastmod', 'sitemapLastmod'],
  ['changefreq', 'changefreq'],
  ['priority', 'priority'],
  ['locale', 'locale'],
  ['source', 'sourceSitemap'],
  ['pathPrefix', 'pathPrefix'],
  ['firstSeenAt', 'firstSeenAt'],
  ['lastSeenAt', 'lastSeenAt'],
  ['changedAt', 'changedAt'],
  ['removedAt', 'removedAt'],
] as const satisfies ReadonlyArray<readonly [string, keyof UrlRow]>;

/** The CSV header's names, in order. */
export const URL_CSV_COLUMNS = URL_CSV_FIELDS.map(([name]) => name);

// RFC 4180: a field holding a comma, a quote or a line break is quoted, its quotes doubled.
function csvField(value: string | number | boolean | null): string {
  if (value === null) return '';
  const text = String(value);
  return /[",\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The CSV header line, with its line break (CRLF, as RFC 4180 and `walk --format csv` end lines). */
export const URL_CSV_HEADER = `${URL_CSV_COLUMNS.join(',')}\r\n`;

/** One URL row as a CSV line, with its line break. */
export function urlCsvLine(row: UrlRow): string {
  return `${URL_CSV_FIELDS.map(([, field]) => csvField(row[field])).join(',')}\r\n`;
}
