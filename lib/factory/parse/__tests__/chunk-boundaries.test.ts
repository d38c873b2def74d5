import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ParseError } from '../../../core/errors.js';
import { parse, parseInPieces, urlset, utf8 } from './helpers.js';

// Each fixture packs the things a split can land inside: multi-byte characters, entities, CDATA,
// comments, attributes, the BOM, the XML declaration that decides the encoding, CRLF line ends.
const padding = `<!-- ${'padding so the document outgrows the 1 KiB sniff window '.repeat(25)} -->`;
const FIXTURES: Record<string, Uint8Array> = {
  'urlset with extensions': utf8(
    urlset(`${padding}
      <url><loc> https://example.com/caf\u00e9/\u65e5\u672c?q=\u{1F600}&amp;x=&#x41;&#66;&lt;&b=2 </loc><lastmod>2024-01-01</lastmod>
        <changefreq>daily</changefreq><priority>0.5</priority>
        <xhtml:link rel="alternate" hreflang="de" href="/de/caf&#xE9;?a=1&amp;b=2"/>
        <image:image><image:loc>https://example.com/i.jpg</image:loc><image:caption><![CDATA[a <b>bold</b> & ]] caption \u00e9]]></image:caption></image:image>
        <video:video><video:title>T&amp;T \u{1F3AC}</video:title><video:duration>42</video:duration><video:tag>a</video:tag><video:tag>b</video:tag></video:video>
        <news:news><news:publication><news:name>N</news:name><news:language>fr</news:language></news:publication><news:keywords>x, y</news:keywords></news:news>
      </url>
      <url><loc>/relative</loc></url><url><loc>javascript:void(0)</loc></url>
      <url><loc>https://example.com/last</loc></url>`),
  ),
  'sitemap index with a stylesheet and relative children': utf8(`<?xml version="1.0" encoding="UTF-8"?><?xml-stylesheet type="text/xsl" href="/main.xsl"?>
    <sm:sitemapindex xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9">${padding}
      <sm:sitemap><sm:loc>posts.xml</sm:loc><sm:lastmod>2024-02-02</sm:lastmod></sm:sitemap>
      <sm:sitemap><sm:loc>https://example.com/pages.xml</sm:loc></sm:sitemap>
    </sm:sitemapindex>`),
  'rss with CDATA': utf8(`<rss version="2.0"><channel>${padding}<title><![CDATA[Caf\u00e9 \u2615]]></title>
    <item><title><![CDATA[\u00e9t\u00e9]]></title><link>https://example.com/\u00e9t\u00e9</link><pubDate>Tue, 02 Jan 2024 10:00:00 GMT</pubDate></item>
    <item><guid>https://example.com/guid</guid></item></channel></rss>`),
  atom: utf8(
    `<feed xmlns="http://www.w3.org/2005/Atom">${padding}<entry><link rel="alternate" href="https://example.com/a?x=1&amp;y=\u00e9"/><updated>2024-01-01T00:00:00Z</updated></entry><entry><link href="b"/></entry></feed>`,
  ),
  'text with BOM and CRLF': new Uint8Array(
    Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from(
        `# ${padding}\r\nhttps://example.com/\u00e9\r\n\r\n# comment \u2603\r\nhttps://example.com/b?x=1&y=2\r\nnot a url\r\n${'https://example.com/long-path-segment\r\n'.repeat(40)}https://example.com/no-final-newline`,
      ),
    ]),
  ),
  'utf-16le with BOM': new Uint8Array(
    Buffer.concat([
      Buffer.from([0xff, 0xfe]),
      Buffer.from(urlset(`${padding}<url><loc>https://example.com/\u00e9\u{1F600}</loc></url><url><loc>https://example.com/2</loc></url>`), 'utf16le'),
    ]),
  ),
  'windows-1252 declared': new Uint8Array(
    Buffer.concat([
      Buffer.from(`<?xml version="1.0" encoding="windows-1252"?><urlset>${padding}<url><loc>https://example.com/caf`),
      Buffer.from([0xe9, 0x80]),
      Buffer.from('</loc></url></urlset>'),
    ]),
  ),
  'browser banner before the XML': utf8(
    `This XML file does not appear to have any style information associated with it.\r\n<urlset>${padding}<url><loc>https://example.com/</loc></url></urlset>`,
  ),
};

// Documents that must fail the same way wherever they are split.
const FAILING: Record<string, [Uint8Array, string]> = {
  'doctype after padding': [utf8(`<?xml version="1.0"?>${padding}<!DOCTYPE lolz [<!ENTITY lol "lol">]><urlset/>`), 'doctype_forbidden'],
  'invalid utf-8 late in the file': [
    new Uint8Array(Buffer.concat([Buffer.from(urlset(`${padding}<url><loc>https://example.com/`)), Buffer.from([0xe6, 0x28, 0x80])])),
    'invalid_encoding',
  ],
  'html page': [utf8(`${padding}<html><body>not found</body></html>`), 'not_sitemap'],
};

function cutsFor(length: number): fc.Arbitrary<number[]> {
  return fc.uniqueArray(fc.integer({ min: 1, max: Math.max(1, length - 1) }), { maxLength: 24 }).map((cuts) => [...cuts].sort((a, b) => a - b));
}

function errorKind(run: () => unknown): string {
  try {
    run();
    return 'none';
  } catch (error) {
    return error instanceof ParseError ? error.kind : `unexpected: ${String(error)}`;
  }
}

describe('chunk-boundary independence', () => {
  for (const [name, bytes] of Object.entries(FIXTURES)) {
    it(`gives the same items and counts for any split: ${name}`, () => {
      const whole = parse(bytes);
      expect(whole.items.length).toBeGreaterThan(0);
      fc.assert(
        fc.property(cutsFor(bytes.length), (cuts) => {
          expect(parseInPieces(bytes, cuts)).toEqual(whole);
        }),
        { numRuns: 150 },
      );
    });

    it(`gives the same items one byte at a time: ${name}`, () => {
      const everyByte = Array.from({ length: bytes.length - 1 }, (_, index) => index + 1);
      expect(parseInPieces(bytes, everyByte)).toEqual(parse(bytes));
    });
  }

  for (const [name, [bytes, kind]] of Object.entries(FAILING)) {
    it(`fails with the same kind for any split: ${name}`, () => {
      expect(errorKind(() => parse(bytes))).toBe(kind);
      fc.assert(
        fc.property(cutsFor(bytes.length), (cuts) => {
          expect(errorKind(() => parseInPieces(bytes, cuts))).toBe(kind);
        }),
        { numRuns: 100 },
      );
    });
  }
});
