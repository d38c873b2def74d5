import { describe, expect, it } from 'vitest';
import { createSitemapParser } from '../index.js';
import { OPTIONS, locs, urlset, utf8 } from './helpers.js';

function generatedUrlset(count: number): Uint8Array {
  const body = Array.from({ length: count }, (_, i) => `<url><loc>https://example.com/p/${i}</loc><lastmod>2024-01-01</lastmod></url>`).join('\n');
  return utf8(urlset(body));
}

describe('streaming', () => {
  it('returns from each write only the entries that chunk completed, in document order', () => {
    const doc = urlset(`<!-- ${'x'.repeat(1100)} -->
      <url><loc>https://example.com/1</loc></url><url><loc>https://example.com/2</loc></url><url><loc>https://example.com/3</loc></url>`);
    const split = doc.indexOf('example.com/3');
    const parser = createSitemapParser(OPTIONS);
    expect(locs(parser.write(utf8(doc.slice(0, split))))).toEqual(['https://example.com/1', 'https://example.com/2']);
    expect(locs(parser.write(utf8(doc.slice(split))))).toEqual(['https://example.com/3']);
    expect(parser.end()).toEqual([]);
  });

  it('holds back the first KiB until the encoding and format are known', () => {
    // Documented: up to 1,024 bytes (and 1,024 characters) are buffered for sniffing.
    const parser = createSitemapParser(OPTIONS);
    expect(parser.write(utf8('<urlset><url><loc>https://example.com/</loc></url>'))).toEqual([]);
    expect(parser.stats.format).toBeNull();
    expect(locs(parser.end())).toEqual(['https://example.com/']);
    expect(parser.stats.format).toBe('urlset');
  });

  it('emits a 20,000-URL urlset progressively over 64 KiB chunks, with running stats', () => {
    const bytes = generatedUrlset(20_000);
    const parser = createSitemapParser(OPTIONS);
    const perWrite: number[] = [];
    for (let offset = 0; offset < bytes.length; offset += 65_536) perWrite.push(parser.write(bytes.subarray(offset, offset + 65_536)).length);
    const last = parser.end().length;
    expect(perWrite.reduce((sum, count) => sum + count, 0) + last).toBe(20_000);
    // Every chunk yields its own entries: nothing is held back until the end.
    expect(perWrite.every((count) => count > 0)).toBe(true);
    expect(Math.max(...perWrite)).toBeLessThan(1000);
    expect(parser.stats).toMatchObject({ format: 'urlset', urls: 20_000, sitemaps: 0, bytes: bytes.length });
  });

  it('gives a stats snapshot the caller cannot use to change the counts', () => {
    const parser = createSitemapParser(OPTIONS);
    parser.write(utf8('<urlset><url><loc>/x</loc></url></urlset>'));
    parser.end();
    const stats = parser.stats;
    stats.dropped.relative = 99;
    expect(parser.stats.dropped.relative).toBe(1);
  });

  it('refuses to be used after end()', () => {
    const parser = createSitemapParser(OPTIONS);
    parser.write(utf8('https://example.com/\n'));
    parser.end();
    expect(() => parser.write(utf8('https://example.com/2\n'))).toThrow(/after end/);
  });
});

describe('caller buffers', () => {
  it('does not depend on a chunk buffer the caller reuses after write()', () => {
    // Streams may hand out one pooled buffer again and again; sniffing and split characters must copy.
    const bytes = utf8(
      `<urlset><url><loc>https://example.com/caf\u00e9</loc></url>${' '.repeat(1500)}<url><loc>https://example.com/\u00e9t\u00e9</loc></url></urlset>`,
    );
    const parser = createSitemapParser(OPTIONS);
    const pool = new Uint8Array(7);
    const items = [];
    for (let offset = 0; offset < bytes.length; offset += pool.length) {
      const piece = bytes.subarray(offset, offset + pool.length);
      pool.set(piece);
      items.push(...parser.write(pool.subarray(0, piece.length)));
      pool.fill(0x41);
    }
    items.push(...parser.end());
    expect(locs(items)).toEqual(['https://example.com/caf\u00e9', 'https://example.com/\u00e9t\u00e9']);
  });
});
