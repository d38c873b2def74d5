// The estimate offers the wizard's sub-tree choices from what it read: path groups and locales, each one a filter keeps
// something for; and what it read whole it counts exactly.
import { describe, expect, it } from 'vitest';
import type { LoopbackServer } from '../../../demo/loopback-server.js';
import { useRouteSites } from '../../../../test/helpers/route-site.js';
import { estimateScope } from '../scope-estimator.js';
import { walkSitemap } from '../../sitemap.js';
import { XML, indexXml } from '../../../../test/helpers/sitemap-xml.js';

const net = { allowPrivate: true };
const serve = useRouteSites();

// `/ca/...` is Catalan only by its hreflang (`ca` alone is ambiguous); `/en/...` says English by its path.
function bilingual(origin: string, lang: 'ca' | 'en', pages: string[]): string {
  const other = lang === 'ca' ? 'en' : 'ca';
  const urls = pages.map(
    (page) =>
      `<url><loc>${origin}/${lang}/${page}</loc>` +
      `<xhtml:link rel="alternate" hreflang="${lang}" href="${origin}/${lang}/${page}"/>` +
      `<xhtml:link rel="alternate" hreflang="${other}" href="${origin}/${other}/${page}"/></url>`,
  );
  return `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">${urls.join('')}</urlset>`;
}

const PAGES = ['projects/a/', 'projects/b/', 'projects/c/', 'solutions/x/', 'solutions/y/', 'solutions/z/'];

function siteOf(): Promise<LoopbackServer> {
  return serve((origin) => ({
    '/robots.txt': { body: `Sitemap: ${origin}/sitemap.xml\n` },
    '/sitemap.xml': { headers: XML, body: indexXml([`${origin}/ca/sitemap.xml`, `${origin}/en/sitemap.xml`]) },
    '/ca/sitemap.xml': { headers: XML, body: bilingual(origin, 'ca', PAGES) },
    '/en/sitemap.xml': { headers: XML, body: bilingual(origin, 'en', PAGES) },
  }));
}

// The URLs a walk emits (once per sitemap that lists them, as the estimate counts them).
async function walked(rootUrl: string, filter: { pathPrefixes?: string[]; locales?: string[] }): Promise<number> {
  let urls = 0;
  for await (const batch of walkSitemap(rootUrl, { net, filter })) urls += batch.length;
  return urls;
}

describe('the estimate offers sub-tree choices', () => {
  it('path groups with their locales and locales with counts, each kept by the filter it names', async () => {
    const site = await siteOf();
    const rootUrl = `${site.origin}/`;
    const estimate = await estimateScope(rootUrl, { net });
    expect(estimate.pathGroups.map(({ prefix, count, locales }) => ({ prefix, count, locales }))).toEqual([
      { prefix: '/projects/*', count: 12, locales: ['ca', 'en'] },
      { prefix: '/solutions/*', count: 12, locales: ['ca', 'en'] },
    ]);
    expect(estimate.locales).toEqual([
      { locale: 'ca', urls: 12 },
      { locale: 'en', urls: 12 },
    ]);
    for (const group of estimate.pathGroups) {
      expect(await walked(rootUrl, { pathPrefixes: [group.prefix.replace(/\*$/, '')] }), group.prefix).toBe(group.count);
    }
    for (const { locale, urls } of estimate.locales) expect(await walked(rootUrl, { locales: [locale] }), locale).toBe(urls);
  });

  it('counts what it read whole exactly: both children read, the range is one value and it is the point', async () => {
    const site = await siteOf();
    const estimate = await estimateScope(`${site.origin}/`, { net });
    expect(estimate).toMatchObject({ subSitemapCount: 2, sampledChildren: 2, urlEstimateRange: [24, 24], urlEstimate: 24 });
    expect(estimate.warnings.join('\n')).toContain('every sub-sitemap was read whole: the 24 URLs they list are counted');
  });
});
