// The byte writer behind --format ndjson|json|csv against the rules it replaces (JSON.stringify, RFC 4180 quoting,
// a stream's UTF-8 encoding) on hostile values: its fast path copies ASCII, so every way out of it is tried.
import { describe, expect, it } from 'vitest';
import type { SitemapEntry } from '../../lib/core/types.js';
import { writeCsvRow } from '../entry-csv.js';
import { JSON_ENTRY_LEAD, NDJSON_URL_LEAD, writeEntryJson } from '../entry-json.js';
import { csvField, RowBytes } from '../row-bytes.js';

const HOSTILE = [
  '',
  'https://example.com/plain',
  'https://example.com/q?x="1",y',
  'a,b',
  'line\nbreak\r\nand\rcr',
  'back\\slash',
  'tab\there\u0000nul\u001fus\u007fdel',
  'caf\u00e9/\u65e5\u672c/\u{1f600}',
  'sep\u2028para\u2029',
  'lone \ud800 high',
  'lone \udfff low',
  'reversed \udc00\ud800 pair',
  '\ud83d',
  `${'x'.repeat(5000)}\u00e9"`,
];

function entryOf(text: string, index: number): SitemapEntry {
  return {
    loc: text,
    lastmod: index % 3 === 0 ? null : text,
    changefreq: index % 2 === 0 ? null : (text as SitemapEntry['changefreq']),
    priority: [null, 0.5, 1, 0, 0.25, 7, Number.NaN, Number.POSITIVE_INFINITY][index % 8] ?? null,
    alternates: index % 4 === 1 ? [{ hreflang: text, href: text }] : [],
    images: index % 5 === 2 ? [{ loc: text, title: text, caption: null, geoLocation: text, license: null }] : [],
    videos: [],
    news: index % 6 === 3 ? { publicationName: text, publicationLanguage: 'en', publicationDate: text, title: text, keywords: [text] } : null,
    source: `https://example.com/${text}.xml`,
    depth: index % 12,
    locale: index % 2 === 0 ? text : null,
    pathPrefix: index % 3 === 1 ? text : null,
  } as SitemapEntry;
}

// A small first buffer, so rows also cross the growth path.
const written = (write: (rows: RowBytes) => void): Buffer => {
  const rows = new RowBytes(4);
  write(rows);
  return rows.take();
};

describe('RowBytes', () => {
  it.each(HOSTILE.map((text, index) => [index, text]))('writes value %i as JSON.stringify, the CSV rule and a stream would', (_index, text) => {
    expect(written((rows) => rows.jsonString(text))).toEqual(Buffer.from(JSON.stringify(text), 'utf8'));
    expect(written((rows) => rows.csvField(text))).toEqual(Buffer.from(csvField(text), 'utf8'));
    expect(written((rows) => rows.text(text))).toEqual(Buffer.from(text, 'utf8'));
  });

  it('writes whole entries byte for byte as JSON.stringify does, and CSV rows as the field rule does', () => {
    HOSTILE.forEach((text, index) => {
      const entry = entryOf(text, index);
      expect(written((rows) => writeEntryJson(rows, entry, JSON_ENTRY_LEAD))).toEqual(Buffer.from(JSON.stringify(entry), 'utf8'));
      expect(written((rows) => writeEntryJson(rows, entry, NDJSON_URL_LEAD))).toEqual(Buffer.from(JSON.stringify({ type: 'url', ...entry }), 'utf8'));
      const { loc, lastmod, changefreq, priority, locale, source } = entry;
      const csv = `${[loc, lastmod, changefreq, priority, locale, source].map((value) => csvField(value)).join(',')}\r\n`;
      expect(written((rows) => writeCsvRow(rows, entry))).toEqual(Buffer.from(csv, 'utf8'));
    });
  });

  it('writes a batch as row by row: groups of plain rows, a group with one value to escape, the groups after it', () => {
    // 2,500 plain entries (25 groups) with a hostile one at 150, so the batch takes the fast path, the fallback for
    // group 2, the groups written checked after it and the fast path again; then every hostile entry among plain ones.
    const plain = (index: number): SitemapEntry => ({ ...entryOf('x', 1), loc: `https://example.com/p/${index}?a=1&b=2`, lastmod: '2024-01-01', locale: null });
    const entries = Array.from({ length: 2_500 }, (_, index) => (index === 150 ? entryOf(HOSTILE[2] as string, 2) : plain(index)));
    HOSTILE.forEach((text, index) => entries.push(entryOf(text, index), plain(index)));
    const jsonRows = entries.map((entry) => JSON.stringify(entry));
    const csvRow = ({ loc, lastmod, changefreq, priority, locale, source }: SitemapEntry) =>
      `${[loc, lastmod, changefreq, priority, locale, source].map((value) => csvField(value)).join(',')}\r\n`;
    const ndjson = written((rows) =>
      rows.batch(entries, (rows, entry) => {
        writeEntryJson(rows, entry, NDJSON_URL_LEAD);
        rows.byte(0x0a);
      }),
    );
    expect(ndjson.toString('utf8')).toBe(entries.map((entry) => `${JSON.stringify({ type: 'url', ...entry })}\n`).join(''));
    const json = written((rows) =>
      rows.batch(entries, (rows, entry, index) => {
        if (index > 0) rows.byte(0x2c);
        writeEntryJson(rows, entry, JSON_ENTRY_LEAD);
      }),
    );
    expect(json.toString('utf8')).toBe(jsonRows.join(','));
    // Compared as bytes: a lone surrogate is U+FFFD in both, which the strings would not show.
    const csv = written((rows) => rows.batch(entries, writeCsvRow));
    expect(csv.equals(Buffer.from(entries.map(csvRow).join(''), 'utf8'))).toBe(true);
  });

  it('never overwrites bytes it handed out until they are given back', () => {
    const rows = new RowBytes(8);
    rows.text('first');
    const first = rows.take();
    rows.text('second, longer than the buffer');
    const second = rows.take();
    expect(first.toString()).toBe('first');
    expect(second.toString()).toBe('second, longer than the buffer');
    expect(rows.length).toBe(0);
  });

  it('reuses a buffer given back (recycle) for later rows, and only that one', () => {
    const rows = new RowBytes(64);
    rows.text('first');
    const first = rows.take();
    rows.text('second');
    const second = rows.take();
    rows.recycle(first);
    rows.text('third');
    const third = rows.take();
    rows.text('fourth');
    const fourth = rows.take();
    expect(fourth.buffer).toBe(first.buffer);
    expect([second, third, fourth].map(String)).toEqual(['second', 'third', 'fourth']);
    expect(new Set([second.buffer, third.buffer, fourth.buffer]).size).toBe(3);
  });
});
