import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkAbsoluteLoc } from '../loc-validator.js';
import { children, locs, parse, urlset } from './helpers.js';

function urlsWith(...values: string[]): string {
  return urlset(values.map((value) => `<url><loc>${value}</loc></url>`).join('\n'));
}

describe('page locs', () => {
  it('keeps absolute http(s) locs exactly as written, trimmed', () => {
    const { items } = parse(
      urlsWith(
        '\n\t  https://example.com/a  \n',
        'HTTP://EXAMPLE.COM/B',
        'https://example.com:8443/c?d#e',
        'http://192.0.2.7/ip',
        'https://xn--bcher-kva.example/',
      ),
    );
    expect(locs(items)).toEqual([
      'https://example.com/a',
      'HTTP://EXAMPLE.COM/B',
      'https://example.com:8443/c?d#e',
      'http://192.0.2.7/ip',
      'https://xn--bcher-kva.example/',
    ]);
  });

  it('drops relative locs and counts them: the protocol requires absolute URLs', () => {
    // Static exports that rewrote every loc to a root-relative path.
    const { items, stats } = parse(urlsWith('/post/1/', 'page.html', '//cdn.example.com/x', '?p=1'));
    expect(items).toEqual([]);
    expect(stats.dropped).toEqual({ tooLong: 0, relative: 4, badScheme: 0, malformed: 0, controlCharacters: 0 });
  });

  it('drops a loc carrying a control character (an encoded newline, tab, NUL or DEL) and counts it', () => {
    const { items, stats } = parse(
      urlsWith(
        'http://h.example/ok&#10;http://169.254.169.254/latest/meta-data/iam',
        'http://h.example/a&#13;b',
        'http://h.example/tab&#9;x',
        'http://h.example/del\u007f',
        'http://h.example/kept',
      ),
    );
    expect(locs(items)).toEqual(['http://h.example/kept']);
    expect(stats.dropped.controlCharacters).toBe(4);
    expect(checkAbsoluteLoc('https://h.example/\u0001', 2_048)).toEqual({ loc: null, drop: 'controlCharacters' });
  });

  it('drops javascript:, data:, ftp: and mailto: locs as bad schemes', () => {
    const { items, stats } = parse(urlsWith('javascript:alert(1)', 'data:text/html,hi', 'ftp://example.com/file', 'mailto:a@example.com'));
    expect(items).toEqual([]);
    expect(stats.dropped.badScheme).toBe(4);
  });

  it('drops locs that do not parse as URLs, and <url> elements without a loc', () => {
    const { items, stats } = parse(
      urlset(
        '<url><loc>http://</loc></url><url><loc>https://exa mple.com/</loc></url><url><loc>http://999.1.1.1/</loc></url><url><loc>https://xn--a.example/</loc></url><url><loc>not a url</loc></url><url><lastmod>2024-01-01</lastmod></url><url><loc>  </loc></url>',
      ),
    );
    expect(items).toEqual([]);
    expect(stats.dropped.malformed).toBe(7);
  });

  it('drops locs longer than maxUrlLength in UTF-8 bytes, not characters', () => {
    const ascii = `https://example.com/${'a'.repeat(30)}`; // 50 bytes
    const multiByte = `https://example.com/${'\u00e9'.repeat(16)}`; // 36 characters, 52 bytes
    const { items, stats } = parse(urlsWith(ascii, `${ascii}b`, multiByte), { maxUrlLength: 50 });
    expect(locs(items)).toEqual([ascii]);
    expect(stats.dropped.tooLong).toBe(2);
  });

  it('accounts for every <url>: kept plus dropped equals the entries in the file', () => {
    const { stats } = parse(urlsWith('https://example.com/1', '/2', 'javascript:3', 'https://example.com/4', ''), { maxUrlLength: 2048 });
    const dropped = Object.values(stats.dropped).reduce((sum, count) => sum + count, 0);
    expect(stats.urls + dropped).toBe(5);
  });
});

describe('child sitemap locs', () => {
  it('resolves a relative child loc against the index URL', () => {
    // Documented choice: an index that says "/post-sitemap.xml" means it on its own host.
    const doc = `<sitemapindex>
      <sitemap><loc>child.xml</loc></sitemap>
      <sitemap><loc>/root.xml</loc></sitemap>
      <sitemap><loc>//cdn.example.net/s.xml</loc></sitemap>
      <sitemap><loc>https://other.example/abs.xml</loc></sitemap>
    </sitemapindex>`;
    const { items } = parse(doc, { sitemapUrl: 'https://example.com/maps/index.xml' });
    expect(children(items)).toEqual([
      'https://example.com/maps/child.xml',
      'https://example.com/root.xml',
      'https://cdn.example.net/s.xml',
      'https://other.example/abs.xml',
    ]);
  });

  it('applies the scheme and length checks to child locs', () => {
    const doc = `<sitemapindex><sitemap><loc>javascript:alert(1)</loc></sitemap><sitemap><loc>https://example.com/${'x'.repeat(100)}.xml</loc></sitemap><sitemap><lastmod>2024-01-01</lastmod></sitemap></sitemapindex>`;
    const { items, stats } = parse(doc, { maxUrlLength: 64 });
    expect(items).toEqual([]);
    expect(stats.dropped).toEqual({ tooLong: 1, relative: 0, badScheme: 1, malformed: 1, controlCharacters: 0 });
  });

  it('counts a relative child as relative when the sitemap URL itself is not absolute', () => {
    const { stats } = parse('<sitemapindex><sitemap><loc>child.xml</loc></sitemap></sitemapindex>', { sitemapUrl: 'memory' });
    expect(stats.dropped.relative).toBe(1);
  });
});

describe('the fast path agrees with the WHATWG URL parser', () => {
  const piece = fc.constantFrom(
    ...['a', 'b', 'x', 'n', '-', '--', '.', ':', '/', '?', '#', '@', '%', ' ', '[', ']', '\\', '\u00e9', '_'],
    ...['0', '1', '9', '0x', '25', '255', '256', '999', '127.0.0.1', '10.0.0.', ':43210', ':65535', ':65536', '99999'],
  );
  const scheme = fc.constantFrom('http://', 'https://', 'HTTPS://', 'http:', 'ftp://', 'javascript:', '', '//');
  const candidate = fc.tuple(scheme, fc.array(piece, { maxLength: 24 })).map(([head, rest]) => (head + rest.join('')).trim());

  function whatwgAccepts(raw: string): boolean {
    if (!/^https?:/i.test(raw)) return false;
    try {
      return new URL(raw).hostname.length > 0;
    } catch {
      return false;
    }
  }

  it('accepts a string exactly when new URL() gives it an http(s) host', () => {
    fc.assert(
      fc.property(candidate, (raw) => {
        expect(checkAbsoluteLoc(raw, 2048).drop === null).toBe(whatwgAccepts(raw));
      }),
      { numRuns: 3000 },
    );
  });

  it('accepts generated web URLs', () => {
    fc.assert(
      fc.property(fc.webUrl({ validSchemes: ['http', 'https'], withQueryParameters: true, withFragments: true }), (url) => {
        expect(checkAbsoluteLoc(url, 100_000)).toEqual({ loc: url, drop: null });
      }),
      { numRuns: 500 },
    );
  });
});
