// The acceptance check on the real-world corpus (../shared/corpus, skipped when absent): every oddity its manifest
// documents shows up as the matching finding, and the sites it documents as ordinary get no error.
import { describe, expect, it } from 'vitest';
import { loadCorpusSites, serveCorpusSite, type CorpusSite } from '../../../../test/helpers/corpus-server.js';
import { checkSite } from '../check-site.js';
import type { RuleId } from '../rules.js';
import type { SiteCheck } from '../site-check.js';

const sites = await loadCorpusSites();
const net = { allowPrivate: true };

/** A documented oddity: the site, where to start (its root when empty), the rules it must raise, whether a sitemap fails. */
const ODDITIES: Array<{ site: string; start: string; rules: RuleId[]; failed?: true }> = [
  { site: 'yoast-staatic-relative', start: '', rules: ['relative_loc'], failed: true },
  { site: 'hugo-relative-hreflang-ayato', start: '', rules: ['relative_loc'], failed: true },
  { site: 'wpcore-relative-roundhousekick', start: 'wp-sitemap.xml', rules: ['relative_loc'] },
  { site: 'video-nsprefix-adminei', start: 'video-sitemap.xml', rules: ['duplicate_loc'] },
  { site: 'magento-herbdoc', start: 'sitemap.xml', rules: ['duplicate_loc'] },
  { site: 'broken-urlset-as-index-heizung', start: 'sitemap.xml', rules: ['urlset_lists_sitemaps'] },
  { site: 'broken-browser-paste-aegislocks', start: 'Sitemap.xml', rules: ['before_declaration'] },
  { site: 'broken-leading-space-adakhome', start: 'sitemap.xml', rules: ['before_declaration'] },
  { site: 'text-bom-aspnet-bazaremarzi', start: 'SiteMap.txt', rules: ['bom'] },
  { site: 'xml-bom-crlf-nailmaster', start: 'Sitemap.xml', rules: ['bom'] },
  { site: 'wrongns-image-dschini', start: 'sitemap.xml', rules: ['namespace', 'cross_host'] },
  { site: 'gz-index-web3bio', start: 'sitemap-index.xml', rules: ['namespace', 'cross_host'] },
  { site: 'index-korsordsakuten-crosshost', start: 'sitemap.xml', rules: ['cross_host'], failed: true },
  { site: 'jekyll-localhost-b10c', start: 'sitemap.xml', rules: ['cross_host'] },
  { site: 'broken-html-wrapped-adminshark', start: 'sitemap.xml.htm', rules: [], failed: true },
  { site: 'broken-html-gdocs-export-rogi3345', start: 'sitemap-hosting/sitemap.xml.html', rules: [], failed: true },
  { site: 'broken-malformed-children-fotz', start: '', rules: [], failed: true },
  { site: 'hexo-text-sitemap-yyshino', start: '', rules: [], failed: true },
];

/** Tags that document something wrong (a site carrying none of them is ordinary). */
const ODD_TAGS = new Set([
  'broken',
  'relative-locs',
  'wrong-namespace',
  'wrong-namespace-https',
  'duplicate-locs',
  'bom',
  'cross-host',
  'cross-host-pages',
  'localhost-locs',
  'missing-children',
  'leading-whitespace-before-xml-decl',
  'html',
  'html-ish-prefix',
  'urlset-used-as-index',
  'broken-robots-target',
  'bare-ampersand',
  'malformed-child',
  'children-are-html-pages',
]);

async function checkOf(site: CorpusSite, start: string): Promise<SiteCheck> {
  const server = await serveCorpusSite(site);
  try {
    return await checkSite(`${server.origin}/${start}`, { net });
  } finally {
    await server.close();
  }
}

const rulesOf = (check: SiteCheck) => new Set([...check.findings, ...check.sitemaps.flatMap((sitemap) => sitemap.findings)].map((finding) => finding.rule));

describe.skipIf(sites === null)('findings on the real-world corpus', () => {
  const byId = new Map((sites ?? []).map((site) => [site.id, site]));

  it.each(ODDITIES)('$site: $rules', async ({ site, start, rules, failed }) => {
    const corpusSite = byId.get(site);
    expect(corpusSite, `${site} is in the corpus`).toBeDefined();
    const check = await checkOf(corpusSite as CorpusSite, start);
    expect([...rulesOf(check)]).toEqual(expect.arrayContaining(rules));
    if (failed) expect(check.counts.failed).toBeGreaterThan(0);
  });

  it('no error on any root of a site the corpus documents as ordinary', async () => {
    const ordinary = (sites ?? []).filter((site) => !site.tags.some((tag) => ODD_TAGS.has(tag)));
    expect(ordinary.length).toBeGreaterThan(10);
    const errors: string[] = [];
    for (const site of ordinary) {
      for (const root of site.roots) {
        const check = await checkOf(site, root.replace(/^\//, ''));
        const found = [...check.findings, ...check.sitemaps.flatMap((sitemap) => sitemap.findings)].filter((f) => f.severity === 'error');
        if (found.length > 0 || check.counts.failed > 0)
          errors.push(`${site.id} ${root}: ${found.map((f) => f.rule).join(', ')} failed ${check.counts.failed}`);
      }
    }
    expect(errors).toEqual([]);
  });
});
