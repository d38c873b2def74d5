import { describe, expect, it } from 'vitest';
import { locs, parse, parseErrorOf, utf8 } from './helpers.js';

const DOC = '<?xml version="1.0"?><urlset><url><loc>https://example.com/caf\u00e9/\u65e5\u672c/\u{1F600}</loc></url></urlset>';
const LOC = 'https://example.com/caf\u00e9/\u65e5\u672c/\u{1F600}';

function utf16le(text: string): Uint8Array {
  return new Uint8Array(Buffer.from(text, 'utf16le'));
}

function swapPairs(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(bytes.length);
  for (let i = 0; i + 1 < bytes.length; i += 2) {
    out[i] = bytes[i + 1] ?? 0;
    out[i + 1] = bytes[i] ?? 0;
  }
  return out;
}

function concat(...parts: Uint8Array[]): Uint8Array {
  return new Uint8Array(Buffer.concat(parts));
}

describe('encodings', () => {
  it('reads UTF-8 with and without a BOM, multi-byte characters included', () => {
    expect(locs(parse(utf8(DOC)).items)).toEqual([LOC]);
    expect(locs(parse(concat(new Uint8Array([0xef, 0xbb, 0xbf]), utf8(DOC))).items)).toEqual([LOC]);
  });

  it('reads UTF-16 LE and BE by their BOM', () => {
    const le = concat(new Uint8Array([0xff, 0xfe]), utf16le(DOC));
    const be = concat(new Uint8Array([0xfe, 0xff]), swapPairs(utf16le(DOC)));
    expect(locs(parse(le).items)).toEqual([LOC]);
    expect(locs(parse(be).items)).toEqual([LOC]);
  });

  it('reads UTF-16 LE without a BOM from its "<\\0" start', () => {
    expect(locs(parse(utf16le(DOC)).items)).toEqual([LOC]);
  });

  it('honours an XML declaration naming ISO-8859-1 (read as windows-1252, as browsers do)', () => {
    const latin = concat(
      utf8('<?xml version="1.0" encoding="ISO-8859-1"?><urlset><url><loc>https://example.com/caf'),
      new Uint8Array([0xe9, 0x80]),
      utf8('</loc></url></urlset>'),
    );
    expect(locs(parse(latin).items)).toEqual(['https://example.com/caf\u00e9\u20ac']);
  });

  it('lets a BOM win over a declaration that names another encoding', () => {
    const doc = concat(
      new Uint8Array([0xef, 0xbb, 0xbf]),
      utf8('<?xml version="1.0" encoding="windows-1252"?><urlset><url><loc>https://example.com/\u00e9</loc></url></urlset>'),
    );
    expect(locs(parse(doc).items)).toEqual(['https://example.com/\u00e9']);
  });

  it('reads a document declared UTF-16 but written in ASCII bytes as UTF-8', () => {
    // A declaration we can read as ASCII is proof the bytes are not UTF-16.
    expect(locs(parse('<?xml version="1.0" encoding="UTF-16"?><urlset><url><loc>https://example.com/</loc></url></urlset>').items)).toEqual([
      'https://example.com/',
    ]);
  });

  it('refuses an encoding label TextDecoder does not know', () => {
    const error = parseErrorOf(() => parse('<?xml version="1.0" encoding="x-klingon"?><urlset/>'));
    expect(error.kind).toBe('invalid_encoding');
  });

  it.each([
    ['a truncated two-byte sequence', [0xc3, 0x28]],
    ['a lone continuation byte', [0x80]],
    ['an overlong slash', [0xc0, 0xaf]],
    ['an encoded surrogate', [0xed, 0xa0, 0x80]],
    ['a code point above U+10FFFF', [0xf4, 0x90, 0x80, 0x80]],
  ])('refuses invalid UTF-8 instead of garbling the URL: %s', (_name, bad) => {
    const doc = concat(utf8('<urlset><url><loc>https://example.com/'), new Uint8Array(bad), utf8('</loc></url></urlset>'));
    expect(parseErrorOf(() => parse(doc)).kind).toBe('invalid_encoding');
  });

  it('refuses a document that ends in the middle of a multi-byte character', () => {
    const doc = concat(utf8('https://example.com/a\nhttps://example.com/'), new Uint8Array([0xe6, 0x97]));
    expect(parseErrorOf(() => parse(doc)).kind).toBe('invalid_encoding');
  });

  it('refuses invalid UTF-8 in a plain-text sitemap too', () => {
    const doc = concat(utf8('https://example.com/a\nhttps://example.com/'), new Uint8Array([0xff]), utf8('\n'));
    expect(parseErrorOf(() => parse(doc)).kind).toBe('invalid_encoding');
  });
});
