// CSV export lines: RFC 4180 quoting for commas, quotes and line breaks; nulls as empty fields.
import { describe, expect, it } from 'vitest';
import type { UrlRow } from '../schemas.js';
import { URL_CSV_HEADER, urlCsvLine } from '../url-csv.js';

const row: UrlRow = {
  url: 'https://example.com/a,b?q="x"',
  sitemapLastmod: '2026-01-01',
  changefreq: 'weekly',
  priority: 0.5,
  sourceSitemap: 'https://example.com/sitemap.xml',
  locale: null,
  pathPrefix: '/',
  firstSeenAt: '2026-01-02T00:00:00.000Z',
  lastSeenAt: '2026-01-03T00:00:00.000Z',
  sitemapSyncedAt: '2026-01-03T00:00:00.000Z',
  changedAt: '2026-01-02T00:00:00.000Z',
  removedAt: null,
  outOfScope: false,
  lastSyncId: 'sync-1',
};

describe('URL CSV', () => {
  it('names its columns once and quotes what needs it', () => {
    // The first six columns are walk's CSV, by the same names; lines end CRLF as walk's do.
    expect(URL_CSV_HEADER).toBe('url,lastmod,changefreq,priority,locale,source,pathPrefix,firstSeenAt,lastSeenAt,changedAt,removedAt\r\n');
    expect(urlCsvLine(row)).toBe(
      `"https://example.com/a,b?q=""x""",2026-01-01,weekly,0.5,,${row.sourceSitemap},/,2026-01-02T00:00:00.000Z,2026-01-03T00:00:00.000Z,2026-01-02T00:00:00.000Z,\r\n`,
    );
    expect(urlCsvLine({ ...row, url: 'https://example.com/line\nbreak' })).toMatch(/^"https:\/\/example\.com\/line\nbreak",/);
  });
});
