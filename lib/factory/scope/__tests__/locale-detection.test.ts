import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LanguageDetector, classifySegment, localeFromPath, localeOf, normaliseHreflang, pathPrefixOf } from '../locale.js';

const site = 'https://shop.example.com';

describe('localeFromPath: locales a URL states on its own', () => {
  it.each([
    ['/en-us/products/x', 'en-US'],
    ['/de-DE/', 'de-DE'],
    ['/fr/', 'fr'],
    ['/ja/docs', 'ja'],
    ['/zh-hans/news/', 'zh-Hans'],
    ['/zh-Hant-TW/', 'zh-Hant-TW'],
    ['/pt_BR/blog/', 'pt-BR'],
    ['/es-419/', 'es-419'],
    ['/en-uk/', 'en-UK'],
    ['/sr-latn/', 'sr-Latn'],
    ['/EN-GB/about', 'en-GB'],
    ['/fr', 'fr'],
    // A region makes even a word-like code a locale: nobody names a section `it-it` by accident.
    ['/it-it/', 'it-IT'],
    ['/id-id/123', 'id-ID'],
  ])('%s -> %s', (path, expected) => {
    expect(localeFromPath(`${site}${path}`)).toBe(expected);
  });

  it.each([
    ['/go/download', 'not an ISO 639-1 code'],
    ['/js/app.js', 'not an ISO 639-1 code'],
    ['/us/stores', 'a country, not a language'],
    ['/me/settings', 'not an ISO 639-1 code'],
    ['/ok/', 'not an ISO 639-1 code'],
    ['/id/123', 'Indonesian, but far more often an id'],
    ['/it/', 'Italian, but also the IT section: needs site evidence'],
    ['/is/this-a-question', 'Icelandic, but also a word'],
    ['/no/way', 'Norwegian, but also a word'],
    ['/my/account', 'Burmese, but also a word'],
    ['/ml/models', 'Malayalam, but also machine learning'],
    ['/uk/delivery', 'Ukrainian, but also the United Kingdom store'],
    ['/ca/stores', 'Catalan, but also the Canada store'],
    ['/to-do/list', 'fits to-REGION (Tonga, Dominican Republic) but is a word'],
    ['/hi-fi/speakers', 'fits hi-REGION but is a word'],
    ['/en-xx/', 'XX is not a region'],
    ['/en-abcd/', 'Abcd is not a script'],
    ['/english/', 'a name, not a code'],
    ['/blog/en-us/', 'the locale is not the first segment'],
    ['/', 'no segment'],
    ['/e/', 'one letter'],
  ])('%s -> null (%s)', (path) => {
    expect(localeFromPath(`${site}${path}`)).toBeNull();
  });

  it('accepts URL objects and bare absolute paths, and returns null for unparseable input', () => {
    expect(localeFromPath(new URL(`${site}/de-at/`))).toBe('de-AT');
    expect(localeFromPath('/ko/')).toBe('ko');
    expect(localeFromPath('not a url')).toBeNull();
    expect(localeFromPath('')).toBeNull();
  });

  it('never throws and only returns well-formed tags, whatever the input', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const locale = localeFromPath(text);
        expect(locale === null || /^[a-z]{2}(-[A-Z][a-z]{3})?(-([A-Z]{2}|\d{3}))?$/.test(locale)).toBe(true);
      }),
    );
  });

  it('never reads a two-letter segment outside ISO 639-1 as a locale', () => {
    const nonLanguages = ['go', 'js', 'us', 'me', 'up', 'do', 'ok', 'on', 'we', 'tv', 'ui', 'ux', 'qa', 'vr', 'ai', 'jp', 'cn', 'gb'];
    for (const code of nonLanguages) expect(classifySegment(code), code).toBeNull();
  });
});

describe('classifySegment: the three kinds of answer', () => {
  it('says which ambiguous codes siblings can confirm and which need hreflang', () => {
    expect(classifySegment('it')).toEqual({ kind: 'ambiguous', code: 'it', confirmBy: 'siblings' });
    expect(classifySegment('ID')).toEqual({ kind: 'ambiguous', code: 'id', confirmBy: 'siblings' });
    expect(classifySegment('uk')).toEqual({ kind: 'ambiguous', code: 'uk', confirmBy: 'hreflang' });
    expect(classifySegment('fr')).toEqual({ kind: 'locale', locale: 'fr' });
    expect(classifySegment('products')).toBeNull();
  });
});

describe('normaliseHreflang', () => {
  it.each([
    ['EN_us', 'en-US'],
    ['en-us', 'en-US'],
    ['zh-hans', 'zh-Hans'],
    ['zh-HANT-hk', 'zh-Hant-HK'],
    ['es-419', 'es-419'],
    ['fr', 'fr'],
    [' de-CH ', 'de-CH'],
    // hreflang is a declaration: a region Google would flag is kept as written, not judged.
    ['en-uk', 'en-UK'],
    ['it', 'it'],
  ])('%s -> %s', (tag, expected) => {
    expect(normaliseHreflang(tag)).toBe(expected);
  });

  it.each(['x-default', 'X-Default', '', 'english', 'e', 'fil', 'xx', 'en-', 'en-US-x-private'])('%s -> null', (tag) => {
    expect(normaliseHreflang(tag)).toBeNull();
  });

  it('is idempotent', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 12 }), (tag) => {
        const once = normaliseHreflang(tag);
        if (once !== null) expect(normaliseHreflang(once)).toBe(once);
      }),
    );
  });
});

describe('localeOf: a sitemap entry', () => {
  it('takes the locale from the path first', () => {
    const entry = { loc: `${site}/de-de/x`, alternates: [{ hreflang: 'en-US', href: `${site}/de-de/x` }] };
    expect(localeOf(entry)).toBe('de-DE');
  });

  it('else takes the hreflang of the alternate that points at the entry itself', () => {
    const entry = {
      loc: `${site}/it/prodotti`,
      alternates: [
        { hreflang: 'x-default', href: `${site}/it/prodotti` },
        { hreflang: 'en', href: `${site}/products` },
        { hreflang: 'it_IT', href: `${site}/it/prodotti` },
      ],
    };
    expect(localeOf(entry)).toBe('it-IT');
  });

  it('matches the self alternate after URL normalisation (host case, default port)', () => {
    const entry = { loc: `${site}/p`, alternates: [{ hreflang: 'nl', href: 'HTTPS://SHOP.example.com:443/p' }] };
    expect(localeOf(entry)).toBe('nl');
  });

  it('is null when neither the path nor a self alternate says anything', () => {
    expect(localeOf({ loc: `${site}/blog/x`, alternates: [] })).toBeNull();
    expect(localeOf({ loc: `${site}/blog/x`, alternates: [{ hreflang: 'fr', href: `${site}/fr/blog/x` }] })).toBeNull();
  });
});

describe('pathPrefixOf: the root folder for downstream filtering', () => {
  it.each([
    ['/blog/x', '/blog/'],
    ['/blog/', '/blog/'],
    ['/blog', '/'],
    ['/en-us/docs/x', '/docs/'],
    ['/fr/blog/post', '/blog/'],
    ['/en-us/', '/'],
    ['/en-us/about', '/'],
    ['/', '/'],
    ['/about.html', '/'],
    ['//blog//x', '/blog/'],
    // Per URL, an ambiguous code is not stripped: `/it/` may be the IT section.
    ['/it/docs/x', '/it/'],
    ['/%E6%97%A5%E6%9C%AC/x', '/%E6%97%A5%E6%9C%AC/'],
  ])('%s -> %s', (path, expected) => {
    expect(pathPrefixOf(`${site}${path}?q=1#top`)).toBe(expected);
  });

  it('is null for unparseable input', () => {
    expect(pathPrefixOf('::not a url::')).toBeNull();
  });
});

describe('LanguageDetector: site-level evidence', () => {
  function detect(paths: string[], hreflangs: string[] = []): string[] {
    const detector = new LanguageDetector();
    for (const path of paths) detector.addUrl(`${site}${path}`);
    for (const tag of hreflangs) detector.addHreflang(tag);
    return detector.languagesDetected();
  }

  it('reports path and hreflang locales, normalised, sorted and deduplicated', () => {
    expect(detect(['/en-us/a', '/EN-US/b', '/fr/c', '/blog/d'], ['en-US', 'ja', 'x-default', 'de_de'])).toEqual(['de-DE', 'en-US', 'fr', 'ja']);
  });

  it('reads /it/ as Italian when two sibling locale folders exist', () => {
    expect(detect(['/en/a', '/fr/a', '/it/a'])).toEqual(['en', 'fr', 'it']);
  });

  it('reads /it/ as a section (no language) next to ordinary folders', () => {
    expect(detect(['/it/support', '/blog/x', '/about/'])).toEqual([]);
    expect(detect(['/it/support', '/en/x'])).toEqual(['en']);
  });

  it('counts sibling languages, not locales: /en-us/ and /en-gb/ do not confirm /it/', () => {
    expect(detect(['/it/support', '/en-us/x', '/en-gb/x'])).toEqual(['en-GB', 'en-US']);
    expect(detect(['/it/support', '/it-it/x', '/en-us/x'])).toEqual(['en-US', 'it-IT']);
    expect(detect(['/it/support', '/en-us/x', '/de-de/x'])).toEqual(['de-DE', 'en-US', 'it']);
  });

  it('reads /it/ as Italian when hreflang names Italian, whatever the siblings', () => {
    expect(detect(['/it/a', '/blog/x'], ['it-IT'])).toEqual(['it', 'it-IT']);
  });

  it('does not read country folders as languages from siblings, only from hreflang', () => {
    expect(detect(['/uk/x', '/ca/x', '/de/x', '/fr/x'])).toEqual(['de', 'fr']);
    expect(detect(['/uk/x', '/de/x'], ['uk'])).toEqual(['de', 'uk']);
  });

  it('takes the minimum number of siblings as an option', () => {
    const detector = new LanguageDetector({ minSiblings: 1 });
    detector.addUrl(`${site}/en/x`);
    detector.addUrl(`${site}/it/x`);
    expect(detector.languagesDetected()).toEqual(['en', 'it']);
  });

  it('never reports /go/, /js/, /us/ or /id/123, even among locale folders', () => {
    expect(detect(['/go/x', '/js/app.js', '/us/stores', '/id/123', '/blog/x'])).toEqual([]);
  });

  it('learns from sitemap entries: the loc, alternate tags and alternate paths', () => {
    const detector = new LanguageDetector();
    detector.addEntry({
      loc: `${site}/products/x`,
      alternates: [
        { hreflang: 'de', href: `${site}/de/produkte/x` },
        { hreflang: 'x-default', href: `${site}/products/x` },
        { hreflang: 'pt-br', href: `${site}/pt-br/produtos/x` },
      ],
    });
    expect(detector.languagesDetected()).toEqual(['de', 'pt-BR']);
  });

  it('resolves a URL with the evidence gathered so far', () => {
    const detector = new LanguageDetector();
    expect(detector.resolveLocale(`${site}/it/x`)).toBeNull();
    detector.addUrl(`${site}/de/`);
    detector.addUrl(`${site}/es/`);
    expect(detector.resolveLocale(`${site}/it/x`)).toBe('it');
    expect(detector.resolveLocale(`${site}/en-gb/x`)).toBe('en-GB');
    expect(detector.resolveLocale(`${site}/uk/x`)).toBeNull();
    expect(detector.resolveLocale(`${site}/blog/x`)).toBeNull();
    expect(detector.resolveLocale('not a url')).toBeNull();
  });

  it('reads /id/123 as an identifier, never Indonesian, even among locale folders', () => {
    expect(detect(['/en/a', '/fr/a', '/id/123', '/no/5'])).toEqual(['en', 'fr']);
    expect(detect(['/en/a', '/fr/a', '/id/berita/1'])).toEqual(['en', 'fr', 'id']);
  });

  it('keeps at most 1000 distinct locales from hostile input', () => {
    const detector = new LanguageDetector();
    for (let i = 0; i < 26 * 26; i += 1) {
      const region = String.fromCharCode(65 + Math.floor(i / 26), 65 + (i % 26));
      for (const language of ['en', 'fr']) detector.addHreflang(`${language}-${region}`);
    }
    expect(detector.languagesDetected()).toHaveLength(1_000);
  });
});
