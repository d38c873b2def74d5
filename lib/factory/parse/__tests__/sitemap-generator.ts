/** A seeded generator of sitemap documents, well-formed and hostile, for the differential tokenizer test. */

/** mulberry32: small, fast and good enough to pick shapes; the same seed gives the same document. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Picks from a seeded stream. */
export class Picker {
  /** How often odd shapes appear in this document: half the documents are mostly clean, so the fast path reads them whole. */
  rough = 1;

  constructor(readonly next: () => number) {}

  /** True with probability p scaled by the document's roughness. */
  odd(p: number): boolean {
    return this.next() < p * this.rough;
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** One of the items. */
  one<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)] as T;
  }
}

// Pieces of text with everything the parser treats specially: entities, numeric references (valid,
// invalid, above U+10FFFF), bare ampersands, markup-looking text, CDATA, comments, multi-byte characters.
const TEXT_PIECES = [
  'a',
  'path',
  '/',
  '?q=1',
  '&',
  '&amp;',
  '&lt;',
  '&gt;',
  '&quot;',
  '&apos;',
  '&amp',
  '&AMP;',
  '&nbsp;',
  '&copy;',
  '&;',
  '&#38;',
  '&#x26;',
  '&#65;',
  '&#x1F600;',
  '&#1114112;',
  '&#x110000;',
  '&#0;',
  '&#xD800;',
  '&#65',
  '&#',
  '&#x;',
  '<![CDATA[x]]>',
  '<![CDATA[<b>&amp;</b>]]]>',
  '<![CDATA[]]>',
  '<!-- c -->',
  '<!---->',
  '<!-- a--!> -->',
  '<?pi x?>',
  ' ',
  '\n',
  '\r\n',
  '\t',
  'caf\u00e9',
  '\u65e5\u672c',
  '\u{1F600}',
  '\u00a0',
  '<b>bold</b>',
  '<br/>',
  '</x>',
  '< ',
  '<>',
  '</>',
  'a > b',
  '"',
  "'",
  '=',
];

const ROOTS = ['urlset', 'sitemapindex', 'sm:urlset', 'URLSET', 'ns2:sitemapindex', 'rss', 'feed', 'html', 'foo'];
const PREFIXES = ['', '', '', 'sm:', 'ns1:', 'SM:'];
const LOCS = [
  'https://example.com/a',
  'http://example.com/b?x=1&amp;y=2',
  'https://example.com/c?x=1&y=2',
  '/relative',
  'child.xml',
  'javascript:alert(1)',
  'ftp://example.com/f',
  'https://exa mple.com/',
  'http://[::1]/',
  'https://xn--caf-dma.com/',
  'https://example.com/caf\u00e9',
  '',
  '   ',
  ' https://example.com/trim ',
];

/** Text for a field: a usual value, or pieces glued together. */
function value(p: Picker, usual: readonly string[]): string {
  if (!p.odd(0.4)) return p.one(usual);
  let out = p.chance(0.5) ? p.one(usual) : '';
  for (let n = p.int(1, 5); n > 0; n--) out += p.one(TEXT_PIECES);
  return out;
}

/** An element with text, sometimes written oddly: upper case, self-closed, unclosed, spaced end tag. */
function field(p: Picker, prefix: string, name: string, text: string): string {
  const tag = p.odd(0.05) ? name.toUpperCase() : name;
  const r = p.odd(1) ? p.next() : 1;
  if (r < 0.03) return `<${prefix}${tag}/>`;
  if (r < 0.05) return `<${prefix}${tag}>${text}`;
  if (r < 0.07) return `<${prefix}${tag}>${text}</${prefix}${tag} >`;
  if (r < 0.08) return `<${prefix}${tag}>${text}</${prefix}${tag}x>`;
  return `<${prefix}${tag}>${text}</${prefix}${tag}>`;
}

function attribute(p: Picker, name: string, text: string): string {
  const r = p.odd(1) ? p.next() : 0.5;
  if (r < 0.03) return ` ${name}=${text.replace(/[\s>]/g, '')}`;
  if (r < 0.05) return ` ${name}`;
  if (r < 0.07) return ` ${name} = "${text.replace(/"/g, '')}"`;
  if (r < 0.3) return ` ${name}='${text.replace(/'/g, '')}'`;
  return ` ${name}="${text.replace(/"/g, '')}"`;
}

function link(p: Picker): string {
  const attrs = [
    attribute(p, p.chance(0.9) ? 'rel' : 'REL', p.one(['alternate', 'alternate', ' Alternate ', 'canonical', ''])),
    attribute(p, 'hreflang', p.one(['de', 'x-default', 'ja', '', 'fr&amp;'])),
    attribute(p, p.chance(0.95) ? 'href' : 'xhtml:href', value(p, ['https://example.com/de', '/fr/page', 'page?a=1&amp;b=2', '', 'javascript:x'])),
  ];
  if (p.chance(0.2)) attrs.reverse();
  const body = attrs.filter(() => p.chance(0.93)).join('');
  const r = p.next();
  const close = r < 0.6 ? '/>' : r < 0.8 ? '></xhtml:link>' : p.odd(0.25) ? ' / >' : '>';
  return `<${p.one(['xhtml:link', 'xhtml:link', 'link', 'XHTML:LINK'])}${body}${close}`;
}

function image(p: Picker): string {
  const parts = [field(p, 'image:', 'loc', value(p, LOCS))];
  if (p.chance(0.5)) parts.push(field(p, 'image:', 'title', value(p, ['A title', ''])));
  if (p.chance(0.4)) parts.push(field(p, 'image:', 'caption', value(p, ['A caption'])));
  if (p.chance(0.2)) parts.push(field(p, 'image:', 'geo_location', 'Paris'), field(p, 'image:', 'license', 'https://example.com/l'));
  return `<image:image>${parts.join('')}</image:image>`;
}

function video(p: Picker): string {
  const parts = [
    field(p, 'video:', 'thumbnail_loc', value(p, LOCS)),
    field(p, 'video:', 'title', value(p, ['Video'])),
    field(p, 'video:', 'description', value(p, ['Desc'])),
    field(p, 'video:', 'content_loc', value(p, LOCS)),
    field(p, 'video:', 'duration', p.one(['42', '-1', 'x', '28800', '28801', ' 7 '])),
    field(p, 'video:', 'rating', p.one(['4.5', '6', ''])),
    field(p, 'video:', 'view_count', p.one(['12', '1e3', 'many'])),
    field(p, 'video:', 'family_friendly', p.one(['yes', 'No', 'TRUE', 'maybe'])),
    field(p, 'video:', 'live', p.one(['no', 'false'])),
    field(p, 'video:', 'tag', value(p, ['t1'])),
    field(p, 'video:', 'tag', 't2'),
    field(p, 'video:', 'uploader', 'U'),
    field(p, 'video:', 'publication_date', '2024-01-01'),
  ];
  return `<video:video>${parts.filter(() => p.chance(0.6)).join('')}</video:video>`;
}

function news(p: Picker): string {
  const publication = `<news:publication>${field(p, 'news:', 'name', value(p, ['Daily']))}${field(p, 'news:', 'language', 'en')}</news:publication>`;
  return `<news:news>${publication}${field(p, 'news:', 'publication_date', '2024-01-01')}${field(p, 'news:', 'title', value(p, ['T']))}${field(p, 'news:', 'keywords', value(p, ['a, b,,c ']))}</news:news>`;
}

function urlEntry(p: Picker, prefix: string): string {
  const parts: string[] = [];
  if (p.chance(0.95)) parts.push(field(p, prefix, 'loc', value(p, LOCS)));
  if (p.chance(0.6)) parts.push(field(p, prefix, 'lastmod', value(p, ['2024-01-01', '2024-01-01T10:00:00+00:00', 'yesterday', ''])));
  if (p.chance(0.5)) parts.push(field(p, prefix, 'changefreq', p.one(['daily', 'weekly', 'Monthly', ' never ', 'sometimes'])));
  if (p.chance(0.5)) parts.push(field(p, prefix, 'priority', p.one(['0.5', '1.0', '1.5', '-0', 'high', ''])));
  for (let n = p.chance(0.3) ? p.int(1, 3) : 0; n > 0; n--) parts.push(link(p));
  if (p.chance(0.2)) parts.push(image(p));
  if (p.chance(0.1)) parts.push(video(p));
  if (p.chance(0.1)) parts.push(news(p));
  if (p.odd(0.1)) parts.push(p.one(TEXT_PIECES));
  if (p.chance(0.2)) parts.reverse();
  const sep = p.one(['', '\n    ', ' ', '\r\n\t']);
  const r = p.odd(1) ? p.next() : 1;
  const close = r < 0.04 ? '' : r < 0.06 ? `</${prefix}URL>` : `</${prefix}url>`;
  return `<${prefix}url>${sep}${parts.join(sep)}${sep}${close}`;
}

function sitemapEntry(p: Picker, prefix: string): string {
  return `<${prefix}sitemap>${field(p, prefix, 'loc', value(p, LOCS))}${p.chance(0.5) ? field(p, prefix, 'lastmod', '2024-06-01') : ''}</${prefix}sitemap>`;
}

function feedBody(p: Picker, root: string): string {
  const items: string[] = [];
  for (let n = p.int(0, 6); n > 0; n--) {
    if (root === 'rss')
      items.push(
        `<item>${field(p, '', 'link', value(p, LOCS))}${p.chance(0.5) ? `<guid isPermaLink="${p.one(['true', 'false'])}">${value(p, LOCS)}</guid>` : ''}${field(p, '', 'pubDate', p.one(['Tue, 02 Jan 2024 10:00:00 GMT', 'soon']))}</item>`,
      );
    else
      items.push(
        `<entry><link${attribute(p, 'rel', p.one(['alternate', 'self']))}${attribute(p, 'href', value(p, LOCS))}/>${field(p, '', 'updated', '2024-01-01')}</entry>`,
      );
  }
  return root === 'rss' ? `<channel>${items.join('')}</channel>` : items.join('');
}

/** Things that push the parser to its limits or off the fast path; rare on purpose. */
function hostile(p: Picker): string {
  const r = p.int(0, 13);
  switch (r) {
    case 0:
      return '<!DOCTYPE urlset [<!ENTITY x "y">]>';
    case 1:
      return '<!ENTITY x "y">';
    case 2:
      return `<!-- ${'long comment '.repeat(p.int(6_000, 7_000))} -->`;
    case 3:
      return `<url><loc>https://example.com/${'x'.repeat(p.chance(0.1) ? 1_048_600 : 2_100)}</loc></url>`;
    case 4:
      return `${'<a>'.repeat(70)}${'</a>'.repeat(70)}`;
    case 5:
      return `<url><loc>https://example.com/${'&amp;'.repeat(300)}</loc></url>`;
    case 6:
      return `<x a="${'v'.repeat(70_000)}"/>`;
    case 7:
      return '<![CDATA[ unterminated';
    case 8:
      return '<!doctype html>';
    case 9:
      return '<?xml-stylesheet type="text/xsl" href="/s.xsl"?>';
    case 10:
      return `<url><loc><![CDATA[https://example.com/${'c'.repeat(p.int(10, 3_000))}]]></loc></url>`;
    case 11:
      return '<url><loc>https://example.com/a<!-- in a field -->b</loc></url>';
    case 12:
      return '<url><loc>https://example.com/\u{1F600}</loc><\u00e9l\u00e9ment>t</\u00e9l\u00e9ment></url>';
    default:
      return '<:odd/><1bad>x</1bad><url><loc>https://example.com/after-odd</loc></url>';
  }
}

/** A whole document as text; `p` decides everything. */
export function sitemapDocument(p: Picker): string {
  p.rough = p.chance(0.5) ? 1 : 0.1;
  const out: string[] = [];
  if (p.chance(0.3)) out.push(p.one([' ', '\n', '\r\n  ', '\t']));
  if (p.chance(0.02)) out.push('This XML file does not appear to have any style information.\n');
  if (p.chance(0.7)) out.push(p.one(['<?xml version="1.0" encoding="UTF-8"?>', "<?xml version='1.0'?>", '<?xml version="1.0" encoding="utf-8" ?>\n']));
  if (p.chance(0.1)) out.push('<?xml-stylesheet type="text/xsl" href="/main-sitemap.xsl"?>');
  if (p.chance(0.1)) out.push('<!-- generated by a plugin -->');
  if (p.odd(0.03)) out.push(hostile(p));
  const root = p.chance(0.9) ? p.one(ROOTS.slice(0, 5)) : p.one(ROOTS);
  const prefix = root.includes(':') ? p.one(PREFIXES) : p.one(PREFIXES);
  const attrs = p.chance(0.8)
    ? `${attribute(p, 'xmlns', 'http://www.sitemaps.org/schemas/sitemap/0.9')}${p.chance(0.5) ? ' xmlns:xhtml="http://www.w3.org/1999/xhtml" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"' : ''}${p.chance(0.05) ? ' data="a&#38;b"' : ''}`
    : '';
  out.push(`<${root}${attrs}>`, p.one(['\n', '', '  ']));
  if (root === 'rss' || root === 'feed') {
    out.push(feedBody(p, root));
  } else {
    // Enough entries, often, to outgrow the 1 KiB sniff window, so most of the document streams.
    for (let n = p.int(0, 14); n > 0; n--) {
      if (p.odd(0.04)) out.push(hostile(p));
      out.push(p.chance(root.includes('index') ? 0.9 : 0.05) ? sitemapEntry(p, prefix) : urlEntry(p, prefix), p.one(['\n', '', '\n  ']));
    }
  }
  if (p.chance(0.93)) out.push(`</${root}>`);
  if (p.chance(0.05)) out.push('<url><loc>https://example.com/after-root</loc></url>', '<!-- trailing -->');
  return out.join('');
}

/** The document's bytes: UTF-8, sometimes with a BOM, sometimes cut short, rarely UTF-16 or with invalid bytes. */
export function sitemapBytes(p: Picker, text: string): Uint8Array {
  let bytes = Buffer.from(text, 'utf8');
  const r = p.next();
  if (r < 0.05) bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes]);
  else if (r < 0.06) bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
  else if (r < 0.07) bytes = Buffer.concat([bytes.subarray(0, p.int(0, bytes.length)), Buffer.from([0xe6, 0x28]), bytes.subarray(0, 40)]);
  if (p.chance(0.06)) bytes = bytes.subarray(0, p.int(0, bytes.length));
  return new Uint8Array(bytes);
}

/** Where to cut the bytes into writes: whole, random pieces, or every single byte (a boundary inside every token). */
export function chunkSizes(p: Picker, length: number): number[] {
  const r = p.next();
  if (r < 0.25) return [length];
  if (r < 0.3 && length <= 6_000) return Array.from({ length }, () => 1);
  const sizes: number[] = [];
  // Tiny pieces only for small documents: htmlparser2 rescans a pending token on every write, so a
  // 90 KB document in 3-byte writes takes seconds on the general path alone.
  const max = length <= 20_000 ? p.one([3, 17, 64, 500, 4_096, 65_536]) : p.one([500, 4_096, 16_384, 65_536]);
  for (let left = length; left > 0;) {
    const size = Math.min(left, p.int(1, max));
    sizes.push(size);
    left -= size;
  }
  return sizes;
}
