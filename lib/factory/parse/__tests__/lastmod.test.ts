import { describe, expect, it } from 'vitest';
import { parseChangefreq, parsePriority } from '../field-values.js';
import { pages, parse, urlset } from './helpers.js';

function lastmods(values: string[]): { lastmods: Array<string | null>; invalid: number } {
  const body = values.map((value, i) => `<url><loc>https://example.com/${i}</loc><lastmod>${value}</lastmod></url>`).join('');
  const { items, stats } = parse(urlset(body));
  return { lastmods: pages(items).map((entry) => entry.lastmod), invalid: stats.invalidLastmod };
}

describe('<lastmod> as a W3C datetime', () => {
  it('keeps every W3C datetime form as written, year-only and year-month included', () => {
    const valid = [
      '2024',
      '2024-05',
      '2024-05-06',
      '2024-05-06T07:08Z',
      '2024-05-06T07:08:09+02:00',
      '2024-05-06T07:08:09.123-05:30',
      '2024-02-29',
      '2024-12-31T23:59:59Z',
    ];
    expect(lastmods(valid)).toEqual({ lastmods: valid, invalid: 0 });
  });

  it('reads a value that is not a W3C datetime as null and counts it, never passing it through', () => {
    const invalid = [
      'yesterday',
      '2024-13-01',
      '2024-00-10',
      '2023-02-29',
      '2024-04-31',
      '2024-05-06T07:08:09', // a time needs a time zone designator
      '2024-05-06 07:08:09Z',
      '2024-05-06T24:00Z',
      '2024-05-06T07:08:09+0200',
      '24-05-06',
      '2024-5-6',
      '&lt;script&gt;alert(1)&lt;/script&gt;',
    ];
    expect(lastmods(invalid)).toEqual({ lastmods: invalid.map(() => null), invalid: invalid.length });
  });

  it('does not count an empty lastmod as invalid', () => {
    expect(lastmods(['  ', ''])).toEqual({ lastmods: [null, null], invalid: 0 });
  });

  it('validates the lastmod of index children the same way', () => {
    const { items, stats } = parse(`<sitemapindex>
      <sitemap><loc>https://example.com/a.xml</loc><lastmod>2024-01-02T03:04:05Z</lastmod></sitemap>
      <sitemap><loc>https://example.com/b.xml</loc><lastmod>last tuesday</lastmod></sitemap>
    </sitemapindex>`);
    expect(items).toEqual([
      { type: 'sitemap', loc: 'https://example.com/a.xml', lastmod: '2024-01-02T03:04:05Z' },
      { type: 'sitemap', loc: 'https://example.com/b.xml', lastmod: null },
    ]);
    expect(stats.invalidLastmod).toBe(1);
  });

  it('reads an unparseable feed date as null and counts it', () => {
    const { items, stats } = parse(`<rss version="2.0"><channel>
      <item><link>https://example.com/one</link><pubDate>not a date</pubDate></item>
      <item><link>https://example.com/two</link><pubDate>Tue, 02 Jan 2024 10:00:00 GMT</pubDate></item>
    </channel></rss>`);
    expect(pages(items).map((entry) => entry.lastmod)).toEqual([null, '2024-01-02T10:00:00.000Z']);
    expect(stats.invalidLastmod).toBe(1);
  });
});

describe('changefreq and priority read without lookups', () => {
  it('reads d.d priorities as Number() does', () => {
    for (let a = 0; a <= 9; a++) {
      for (let b = 0; b <= 9; b++) {
        const value = Number(`${a}.${b}`);
        expect(parsePriority(`${a}.${b}`)).toBe(value >= 0 && value <= 1 ? value : null);
      }
    }
    expect(parsePriority(' 0.5 ')).toBe(0.5);
    expect(parsePriority('0.x')).toBeNull();
    expect(parsePriority('1.5')).toBeNull();
  });

  it('reads changefreq in any case and padding, and nothing else', () => {
    expect(parseChangefreq('daily')).toBe('daily');
    expect(parseChangefreq(' Weekly\n')).toBe('weekly');
    expect(parseChangefreq('dail')).toBeNull();
    expect(parseChangefreq('constructor')).toBeNull();
  });
});
