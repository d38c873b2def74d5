import { describe, expect, it } from 'vitest';
import { isNewerLastmod } from '../lastmod-order.js';
import { prepareRows } from '../apply-shard.js';
import type { ShardEntry } from '../../core/types.js';

const entry = (source: string, lastmod: string | null, priority: number | null = null): ShardEntry => ({
  url: 'https://example.com/p',
  lastmod,
  changefreq: null,
  priority,
  source,
  locale: null,
});

describe('the newest lastmod of the sitemaps listing a URL', () => {
  it('compares W3C datetimes as instants, every form included', () => {
    expect(isNewerLastmod('2024', '2023-12-31')).toBe(true);
    expect(isNewerLastmod('2024-05', '2024-04-30T23:59:59Z')).toBe(true);
    expect(isNewerLastmod('2024-05-06T07:00:00+02:00', '2024-05-06T06:00:00Z')).toBe(false);
    expect(isNewerLastmod('2024-05-06T07:00:00-02:00', '2024-05-06T08:00:00Z')).toBe(true);
  });

  it('counts a missing lastmod as older than any, and keeps the first on a tie', () => {
    expect(isNewerLastmod('2020-01-01', null)).toBe(true);
    expect(isNewerLastmod(null, '2020-01-01')).toBe(false);
    expect(isNewerLastmod(null, null)).toBe(false);
    expect(isNewerLastmod('2024-05-06', '2024-05-06T00:00:00Z')).toBe(false);
  });

  it('gives a URL of one shard the facts of its newest listing, every sitemap kept as a membership', () => {
    const { rows } = prepareRows([entry('https://example.com/a.xml', '2023-01-01', 0.1), entry('https://example.com/b.xml', '2024-01-01', 0.9)]);
    expect(rows).toEqual([
      expect.objectContaining({
        lastmod: '2024-01-01',
        priority: 0.9,
        source: 'https://example.com/b.xml',
        sources: ['https://example.com/b.xml', 'https://example.com/a.xml'],
      }),
    ]);
    const older = prepareRows([entry('https://example.com/a.xml', '2024-01-01'), entry('https://example.com/b.xml', '2023-01-01')]);
    expect(older.rows.map(({ lastmod, sources }) => [lastmod, sources])).toEqual([['2024-01-01', ['https://example.com/a.xml', 'https://example.com/b.xml']]]);
  });
});
