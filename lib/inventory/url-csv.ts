import type { UrlRow } from './schemas.js';

/** The columns of a CSV export of a site's URLs, in order (the header line names them). */
export const URL_CSV_COLUMNS = [
  'url',
  'sitemapLastmod',
  'changefreq',
  'priority',
  'locale',
  'pathPrefix',
  'firstSeenAt',
  'lastSeenAt',
  'changedAt',
  'removedAt',
] as const;

// RFC 4180: a field holding a comma, a quote or a line break is quoted, its quotes doubled.
function csvField(value: string | number | null): string {
  if (value === null) return '';
  const text = String(value);
  return /[",\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The CSV header line, with its line break. */
export const URL_CSV_HEADER = `${URL_CSV_COLUMNS.join(',')}\n`;

/** One URL row as a CSV line, with its line break. */
export function urlCsvLine(row: UrlRow): string {
  return `${URL_CSV_COLUMNS.map((column) => csvField(row[column])).join(',')}\n`;
}
