import { describe, expect, it } from 'vitest';
import { pages, parse, urlset } from './helpers.js';

function onlyEntry(body: string) {
  const [entry, ...rest] = pages(parse(urlset(body)).items);
  expect(rest).toEqual([]);
  if (entry === undefined) throw new Error('no entry parsed');
  return entry;
}

describe('Google image extension', () => {
  it('reads every image field into the typed model', () => {
    const entry = onlyEntry(`<url><loc>https://example.com/p</loc>
      <image:image>
        <image:loc>https://example.com/1.jpg</image:loc>
        <image:title>Red shoe</image:title>
        <image:caption><![CDATA[A red shoe & its box]]></image:caption>
        <image:geo_location>Paris, France</image:geo_location>
        <image:license>https://example.com/license</image:license>
      </image:image>
      <image:image><image:loc>https://example.com/2.jpg</image:loc></image:image>
    </url>`);
    expect(entry.images).toEqual([
      {
        loc: 'https://example.com/1.jpg',
        title: 'Red shoe',
        caption: 'A red shoe & its box',
        geoLocation: 'Paris, France',
        license: 'https://example.com/license',
      },
      { loc: 'https://example.com/2.jpg', title: null, caption: null, geoLocation: null, license: null },
    ]);
  });

  it('leaves out an image without a loc', () => {
    const entry = onlyEntry('<url><loc>https://example.com/p</loc><image:image><image:title>orphan</image:title></image:image></url>');
    expect(entry.images).toEqual([]);
  });
});

describe('Google video extension', () => {
  it('reads every video field, with numbers, yes/no flags and repeated tags', () => {
    const entry = onlyEntry(`<url><loc>https://example.com/v</loc>
      <video:video>
        <video:thumbnail_loc>https://example.com/t.jpg</video:thumbnail_loc>
        <video:title>Grilling steaks</video:title>
        <video:description>Alkis shows you how.</video:description>
        <video:content_loc>https://example.com/v.mp4</video:content_loc>
        <video:player_loc>https://example.com/player?video=123</video:player_loc>
        <video:duration>600</video:duration>
        <video:expiration_date>2030-11-05T19:20:30+08:00</video:expiration_date>
        <video:rating>4.2</video:rating>
        <video:view_count>12345</video:view_count>
        <video:publication_date>2024-11-05T19:20:30+08:00</video:publication_date>
        <video:family_friendly>yes</video:family_friendly>
        <video:requires_subscription>No</video:requires_subscription>
        <video:live>no</video:live>
        <video:uploader info="https://example.com/users/grillymcgrillerson">GrillyMcGrillerson</video:uploader>
        <video:tag>steak</video:tag><video:tag>meat</video:tag>
        <video:restriction relationship="allow">IE GB US CA</video:restriction>
      </video:video>
    </url>`);
    expect(entry.videos).toEqual([
      {
        thumbnailLoc: 'https://example.com/t.jpg',
        title: 'Grilling steaks',
        description: 'Alkis shows you how.',
        contentLoc: 'https://example.com/v.mp4',
        playerLoc: 'https://example.com/player?video=123',
        duration: 600,
        expirationDate: '2030-11-05T19:20:30+08:00',
        rating: 4.2,
        viewCount: 12345,
        publicationDate: '2024-11-05T19:20:30+08:00',
        familyFriendly: true,
        requiresSubscription: false,
        live: false,
        uploader: 'GrillyMcGrillerson',
        tags: ['steak', 'meat'],
      },
    ]);
  });

  it('reads values that do not parse as null', () => {
    // Out-of-range rating, words for numbers, a flag that is neither yes nor no.
    const entry = onlyEntry(`<url><loc>https://example.com/v</loc><video:video>
      <video:duration>ten minutes</video:duration><video:rating>9</video:rating><video:view_count>-5</video:view_count>
      <video:family_friendly>maybe</video:family_friendly></video:video></url>`);
    expect(entry.videos[0]).toMatchObject({ duration: null, rating: null, viewCount: null, familyFriendly: null, tags: [] });
  });

  it('keeps a title with a bare ampersand, as hand-edited video sitemaps have', () => {
    const entry = onlyEntry('<url><loc>https://example.com/v</loc><video:video><video:title>Brands & Models</video:title></video:video></url>');
    expect(entry.videos[0]?.title).toBe('Brands & Models');
  });
});

describe('Google news extension', () => {
  it('reads publication name and language, date, title and comma-separated keywords', () => {
    const entry = onlyEntry(`<url><loc>https://example.com/article</loc>
      <news:news>
        <news:publication><news:name>The Example Times</news:name><news:language>en</news:language></news:publication>
        <news:publication_date>2024-12-23</news:publication_date>
        <news:title><![CDATA[Companies A, B in merger talks]]></news:title>
        <news:keywords>business, merger, , acquisition</news:keywords>
      </news:news>
    </url>`);
    expect(entry.news).toEqual({
      publicationName: 'The Example Times',
      publicationLanguage: 'en',
      publicationDate: '2024-12-23',
      title: 'Companies A, B in merger talks',
      keywords: ['business', 'merger', 'acquisition'],
    });
  });
});

describe('hreflang alternates', () => {
  it('reads xhtml:link alternates and resolves a relative href against the page loc', () => {
    // Hugo built with an empty baseURL writes root-relative hrefs.
    const entry = onlyEntry(`<url><loc>https://example.com/en/page</loc>
      <xhtml:link rel="alternate" hreflang="de" href="https://example.com/de/seite"/>
      <xhtml:link rel="alternate" hreflang="ja" href="/ja/page"/>
      <xhtml:link rel="alternate" hreflang="x-default" href="https://example.com/page?a=1&amp;b=2"/>
    </url>`);
    expect(entry.alternates).toEqual([
      { hreflang: 'de', href: 'https://example.com/de/seite' },
      { hreflang: 'ja', href: 'https://example.com/ja/page' },
      { hreflang: 'x-default', href: 'https://example.com/page?a=1&b=2' },
    ]);
  });

  it('leaves out links that are not hreflang alternates or whose href is unusable', () => {
    const entry = onlyEntry(`<url>
      <xhtml:link rel="alternate" media="only screen and (max-width: 640px)" href="https://m.example.com/"/>
      <xhtml:link rel="canonical" hreflang="en" href="https://example.com/"/>
      <xhtml:link rel="alternate" hreflang="fr" href="javascript:alert(1)"/>
      <xhtml:link rel="alternate" hreflang="it"/>
      <xhtml:link rel="ALTERNATE" hreflang="es" href="https://example.com/es/"/>
      <loc>https://example.com/</loc>
    </url>`);
    expect(entry.alternates).toEqual([{ hreflang: 'es', href: 'https://example.com/es/' }]);
  });
});

describe('sitemaps.org optional fields', () => {
  it('lower-cases a valid changefreq and reads anything else as null', () => {
    const doc = urlset(`<url><loc>https://example.com/1</loc><changefreq> Weekly </changefreq></url>
      <url><loc>https://example.com/2</loc><changefreq>fortnightly</changefreq></url>`);
    expect(pages(parse(doc).items).map((entry) => entry.changefreq)).toEqual(['weekly', null]);
  });

  it('keeps a priority between 0 and 1 and reads anything else as null', () => {
    const values = ['1.0', ' 0.25 ', '1.5', '-0.1', 'high', ''];
    const doc = urlset(values.map((value, index) => `<url><loc>https://example.com/${index}</loc><priority>${value}</priority></url>`).join(''));
    expect(pages(parse(doc).items).map((entry) => entry.priority)).toEqual([1, 0.25, null, null, null, null]);
  });

  it('trims lastmod and reads an empty one as null', () => {
    const doc = urlset(`<url><loc>https://example.com/1</loc><lastmod>
      2024-05-06T07:08:09+00:00 </lastmod></url><url><loc>https://example.com/2</loc><lastmod> </lastmod></url>`);
    expect(pages(parse(doc).items).map((entry) => entry.lastmod)).toEqual(['2024-05-06T07:08:09+00:00', null]);
  });
});
