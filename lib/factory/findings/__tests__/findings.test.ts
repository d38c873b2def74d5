// Each finding rule against a loopback site that breaks it, and the same site without the fault finding nothing.
import { readFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { CannedResponse } from '../../../demo/loopback-server.js';
import { useRouteSites, type RoutesOf } from '../../../../test/helpers/route-site.js';
import { XML } from '../../../../test/helpers/sitemap-xml.js';
import { checkSite } from '../check-site.js';
import { RULES } from '../rules.js';
import { SiteCheckSchema, type SiteCheck } from '../site-check.js';
import type { WalkCallOptions } from '../../sitemap.js';

const serve = useRouteSites();
const NS = 'http://www.sitemaps.org/schemas/sitemap/0.9';
const net = { allowPrivate: true };

const urlset = (locs: string[], extra = '') =>
  `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="${NS}"${extra}>${locs.map((loc) => `<url><loc>${loc}</loc></url>`).join('')}</urlset>`;
const dated = (entries: Array<[string, string]>) =>
  `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="${NS}">${entries.map(([loc, lastmod]) => `<url><loc>${loc}</loc><lastmod>${lastmod}</lastmod></url>`).join('')}</urlset>`;
const index = (locs: string[]) =>
  `<?xml version="1.0"?><sitemapindex xmlns="${NS}">${locs.map((loc) => `<sitemap><loc>${loc}</loc></sitemap>`).join('')}</sitemapindex>`;
const xml = (body: string | Buffer): CannedResponse => ({ headers: XML, body });

/** Checks a site served from `routes` (from its root, or from `start`), its report checked against the schema. */
async function check(routes: RoutesOf, start = '/', options: WalkCallOptions & { now?: () => Date } = {}): Promise<SiteCheck> {
  const site = await serve(routes);
  const report = await checkSite(site.url(start), { net, ...options });
  expect(SiteCheckSchema.parse(report)).toEqual(report);
  return report;
}

/** Every rule a check found, the site's and each sitemap's, in order. */
const rules = (report: SiteCheck) => [...report.findings, ...report.sitemaps.flatMap((sitemap) => sitemap.findings)].map((finding) => finding.rule);

describe('a clean site', () => {
  it('has no findings: every sitemap ok, nothing counted', async () => {
    const report = await check((o) => ({
      '/robots.txt': { body: `User-agent: *\nDisallow: /private/\nSitemap: ${o}/sitemap.xml\n` },
      '/sitemap.xml': xml(index([`${o}/pages.xml`, `${o}/posts.xml.gz`])),
      '/pages.xml': xml(
        dated([
          [`${o}/a`, '2026-01-01'],
          [`${o}/b`, '2026-02-01T10:00:00Z'],
        ]),
      ),
      '/posts.xml.gz': { headers: { 'content-type': 'application/gzip' }, body: gzipSync(urlset([`${o}/blog/c`])) },
    }));
    expect(report.discovery).toBe('robots');
    expect(report.findings).toEqual([]);
    expect(report.sitemaps.map((s) => [s.kind, s.status, s.foundVia.by, s.urls])).toEqual([
      ['sitemapindex', 'ok', 'robots', 0],
      ['urlset', 'ok', 'index', 2],
      ['urlset', 'ok', 'index', 1],
    ]);
    expect(report.counts).toEqual({ sitemaps: 3, failed: 0, errors: 0, warnings: 0, notices: 0 });
  });
});

describe('the document', () => {
  // One sitemap whose body names the site's own origin as $O.
  const one = (body: string, headers: Record<string, string> = { 'content-type': 'application/xml' }) =>
    check((o) => ({ '/sitemap.xml': { headers, body: body.replaceAll('$O', o) } }), '/sitemap.xml');

  it("namespace: missing, Google's old one, and the https:// variant are errors", async () => {
    for (const root of [
      '<urlset>',
      '<urlset xmlns="http://www.google.com/schemas/sitemap/0.9">',
      '<urlset xmlns="https://www.sitemaps.org/schemas/sitemap/0.9">',
    ]) {
      const report = await one(`<?xml version="1.0"?>${root}<url><loc>$O/a</loc></url></urlset>`);
      expect(report.sitemaps[0]).toMatchObject({ status: 'has_issues', findings: [{ rule: 'namespace', severity: 'error' }] });
    }
    expect(rules(await one(`<?xml version="1.0"?><ns1:urlset xmlns:ns1="${NS}"><ns1:url><ns1:loc>$O/a</ns1:loc></ns1:url></ns1:urlset>`))).toEqual([]);
  });

  it('not_utf8, bom and before_declaration from the first bytes', async () => {
    expect(rules(await one(`<?xml version="1.0" encoding="ISO-8859-1"?><urlset xmlns="${NS}"><url><loc>$O/a</loc></url></urlset>`))).toEqual(['not_utf8']);
    const bom = await check(
      (o) => ({ '/sitemap.xml': xml(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(urlset([`${o}/a`]))])) }),
      '/sitemap.xml',
    );
    expect(rules(bom)).toEqual(['bom']);
    expect(rules(await one(` ${urlset(['$O/a'])}`))).toEqual(['before_declaration']);
    const banner = `This XML file does not appear to have any style information associated with it.\n<urlset xmlns="${NS}"><url><loc>$O/a</loc></url></urlset>`;
    expect(rules(await one(banner))).toEqual(['before_declaration']);
  });

  it('relative_loc and invalid_loc: dropped locs, with an example', async () => {
    const report = await one(urlset(['/relative', 'javascript:alert(1)', '$O/fine']));
    expect(report.sitemaps[0]?.findings).toMatchObject([
      { rule: 'invalid_loc', severity: 'error', count: 1 },
      { rule: 'relative_loc', severity: 'error', count: 1, examples: ['/relative'] },
    ]);
  });

  it('truncated: a document cut before its root closes keeps its entries and says so', async () => {
    const report = await one(`<?xml version="1.0"?><urlset xmlns="${NS}"><url><loc>$O/a</loc></url><url><loc>$O/b</loc></url>`);
    expect(report.sitemaps[0]).toMatchObject({ urls: 2, findings: [{ rule: 'truncated', severity: 'error' }] });
  });

  it('too_many_urls: past the per-file cap', async () => {
    const site = await serve((o) => ({ '/sitemap.xml': xml(urlset([`${o}/a`, `${o}/b`, `${o}/c`])) }));
    const report = await checkSite(site.url('/sitemap.xml'), { net, maxUrlsPerSitemap: 2 });
    expect(rules(report)).toEqual(['too_many_urls']);
  });

  it('empty, content_type and gzip_unnamed', async () => {
    expect(rules(await one(urlset([])))).toEqual(['empty']);
    expect(rules(await one(urlset(['$O/a']), { 'content-type': 'text/html' }))).toEqual(['content_type']);
    const gzipped = await check((o) => ({ '/sitemap.xml': xml(gzipSync(urlset([`${o}/a`]))) }), '/sitemap.xml');
    expect(rules(gzipped)).toEqual(['gzip_unnamed']);
  });

  it('redirected: the final URL is named', async () => {
    const report = await check(
      (o) => ({ '/sitemap.xml': { status: 301, headers: { location: `${o}/real.xml` } }, '/real.xml': xml(urlset([`${o}/a`])) }),
      '/sitemap.xml',
    );
    expect(report.sitemaps[0]?.findings).toMatchObject([{ rule: 'redirected', severity: 'warning', examples: [expect.stringMatching(/\/real\.xml$/)] }]);
  });
});

describe('the entries', () => {
  it('cross_host: locs on another host, unless the site that owns them declares the sitemap in its robots.txt', async () => {
    const pages = await serve({});
    const report = await check((o) => ({ '/sitemap.xml': xml(urlset([`${pages.origin}/a`, `${o}/b`])) }), '/sitemap.xml');
    expect(report.sitemaps[0]?.findings).toMatchObject([{ rule: 'cross_host', severity: 'error', count: 1, examples: [`${pages.origin}/a`] }]);
    // A CDN host serves the owner's sitemap; the owner's robots.txt declares it there (the protocol's cross-submission).
    let owner = '';
    const cdn = await serve.with((request) => (request.url === '/owner.xml' ? xml(urlset([`${owner}/page`])) : null));
    const site = await serve({ '/robots.txt': { body: `Sitemap: ${cdn.origin}/owner.xml\n` } });
    owner = site.origin;
    const declared = await checkSite(site.url('/'), { net });
    expect(declared.sitemaps).toMatchObject([{ url: `${cdn.origin}/owner.xml`, foundVia: { by: 'robots' }, status: 'ok', urls: 1, findings: [] }]);
  });

  it('outside_path: a sitemap in a folder listing pages elsewhere, unless robots.txt declares it', async () => {
    const routes: RoutesOf = (o) => ({ '/blog/sitemap.xml': xml(urlset([`${o}/blog/a`, `${o}/shop/b`])) });
    const given = await check(routes, '/blog/sitemap.xml');
    expect(given.sitemaps[0]?.findings).toMatchObject([{ rule: 'outside_path', count: 1, examples: [expect.stringMatching(/\/shop\/b$/)] }]);
    const declared = await check((o) => ({ ...routes(o), '/robots.txt': { body: `Sitemap: ${o}/blog/sitemap.xml\n` } }));
    expect(rules(declared)).toEqual([]);
  });

  it('robots_disallowed: locs the site itself disallows', async () => {
    const report = await check((o) => ({
      '/robots.txt': { body: `User-agent: *\nDisallow: /private/\nSitemap: ${o}/sitemap.xml\n` },
      '/sitemap.xml': xml(urlset([`${o}/private/x`, `${o}/public/y`])),
    }));
    expect(report.sitemaps[0]?.findings).toMatchObject([{ rule: 'robots_disallowed', count: 1, examples: [expect.stringMatching(/\/private\/x$/)] }]);
  });

  it('lastmod_invalid, lastmod_future', async () => {
    const report = await check(
      (o) => ({
        '/sitemap.xml': xml(
          dated([
            [`${o}/a`, 'yesterday'],
            [`${o}/b`, '2099-01-01'],
            [`${o}/c`, '2026-01-01'],
          ]),
        ),
      }),
      '/sitemap.xml',
      { now: () => new Date('2026-12-07T12:00:00Z') },
    );
    expect(report.sitemaps[0]?.findings).toMatchObject([
      { rule: 'lastmod_future', count: 1, examples: [expect.stringMatching(/\/b \(2099-01-01\)$/)] },
      { rule: 'lastmod_invalid', count: 1 },
    ]);
  });

  it('lastmod_same_instant: one instant to the second on every URL, not a shared date', async () => {
    const pages = Array.from({ length: 12 }, (_, i) => `/p${i}`);
    const instant = await check((o) => ({ '/sitemap.xml': xml(dated(pages.map((p) => [`${o}${p}`, '2026-11-30T08:00:00+00:00']))) }), '/sitemap.xml');
    expect(instant.sitemaps[0]?.findings).toMatchObject([{ rule: 'lastmod_same_instant', count: 12, examples: ['2026-11-30T08:00:00+00:00'] }]);
    const day = await check((o) => ({ '/sitemap.xml': xml(dated(pages.map((p) => [`${o}${p}`, '2026-11-30']))) }), '/sitemap.xml');
    expect(rules(day)).toEqual([]);
  });

  it('duplicate_loc within a sitemap, duplicate_across between two', async () => {
    const report = await check(
      (o) => ({
        '/sitemap.xml': xml(index([`${o}/one.xml`, `${o}/two.xml`])),
        '/one.xml': xml(urlset([`${o}/a`, `${o}/a`, `${o}/b`])),
        '/two.xml': xml(urlset([`${o}/b`, `${o}/c`])),
      }),
      '/sitemap.xml',
    );
    expect(report.findings).toMatchObject([{ rule: 'duplicate_across', severity: 'notice', count: 1, examples: [expect.stringMatching(/\/b$/)] }]);
    const one = report.sitemaps.find((s) => s.url.endsWith('/one.xml'));
    expect(one?.findings).toMatchObject([{ rule: 'duplicate_loc', count: 1, examples: [expect.stringMatching(/\/a$/)] }]);
  });

  it('urlset_lists_sitemaps: a urlset of sitemap URLs', async () => {
    const report = await check((o) => ({ '/sitemap.xml': xml(urlset([`${o}/post-sitemap1.xml`, `${o}/post-sitemap2.xml`])) }), '/sitemap.xml');
    expect(rules(report)).toEqual(['urlset_lists_sitemaps']);
  });

  it('index_of_indexes and too_deep', async () => {
    const routes: RoutesOf = (o) => ({
      '/sitemap.xml': xml(index([`${o}/inner.xml`])),
      '/inner.xml': xml(index([`${o}/leaf.xml`])),
      '/leaf.xml': xml(urlset([`${o}/a`])),
    });
    const nested = await check(routes, '/sitemap.xml');
    expect(nested.sitemaps.find((s) => s.url.endsWith('/inner.xml'))?.findings).toMatchObject([{ rule: 'index_of_indexes', severity: 'warning' }]);
    const cut = await check(routes, '/sitemap.xml', { maxDepth: 1 });
    expect(rules(cut)).toEqual(expect.arrayContaining(['too_deep', 'index_of_indexes']));
  });
});

describe('the site', () => {
  it('mixed_variants: http and https of one host', async () => {
    const report = await check((o) => ({ '/sitemap.xml': xml(urlset([`${o}/a`, `${o}/b`, `${o.replace('http:', 'https:')}/c`])) }), '/sitemap.xml');
    expect(report.findings).toMatchObject([{ rule: 'mixed_variants', count: 1 }]);
  });

  it('hreflang_one_way: B is listed with alternates, none back to A', async () => {
    const alt = (loc: string, links: Array<[string, string]>) =>
      `<url><loc>${loc}</loc>${links.map(([lang, href]) => `<xhtml:link rel="alternate" hreflang="${lang}" href="${href}"/>`).join('')}</url>`;
    const body = (o: string) =>
      `<?xml version="1.0"?><urlset xmlns="${NS}" xmlns:xhtml="http://www.w3.org/1999/xhtml">` +
      alt(`${o}/en/a`, [
        ['en', `${o}/en/a`],
        ['fr', `${o}/fr/a`],
      ]) +
      alt(`${o}/fr/a`, [
        ['fr', `${o}/fr/a`],
        ['de', `${o}/de/a`],
      ]) +
      alt(`${o}/en/b`, [
        ['en', `${o}/en/b`],
        ['fr', `${o}/fr/b`],
      ]) +
      alt(`${o}/fr/b`, [
        ['fr', `${o}/fr/b`],
        ['en', `${o}/en/b`],
      ]) +
      '</urlset>';
    const report = await check((o) => ({ '/sitemap.xml': xml(body(o)) }), '/sitemap.xml');
    expect(report.findings).toMatchObject([{ rule: 'hreflang_one_way', count: 1, examples: [expect.stringMatching(/\/en\/a -> .*\/fr\/a$/)] }]);
  });

  it('undeclared: a sitemap found by probing, and a failed child ranked first and counted as an error', async () => {
    const report = await check((o) => ({ '/sitemap.xml': xml(index([`${o}/fine.xml`, `${o}/gone.xml`])), '/fine.xml': xml(urlset([`${o}/a`])) }));
    expect(report.discovery).toBe('fallback');
    expect(report.sitemaps.map((s) => [s.url.replace(/^http:\/\/[^/]+/, ''), s.status])).toEqual([
      ['/gone.xml', 'failed'],
      ['/sitemap.xml', 'ok'],
      ['/fine.xml', 'ok'],
    ]);
    expect(report.sitemaps[0]?.failure).toMatchObject({ kind: 'http_status', httpStatus: 404 });
    expect(report.sitemaps[1]?.findings).toMatchObject([{ rule: 'undeclared', severity: 'notice' }]);
    expect(report.counts).toEqual({ sitemaps: 3, failed: 1, errors: 1, warnings: 0, notices: 1 });
  });
});

describe('discovery in the report', () => {
  it('a sitemap the home page links: found via the home page, and robots.txt should declare it', async () => {
    const report = await check((o) => ({
      '/': { headers: { 'content-type': 'text/html' }, body: `<html><head><link rel="sitemap" href="${o}/site-map.xml"></head></html>` },
      '/site-map.xml': xml(urlset([`${o}/a`])),
    }));
    expect(report.discovery).toBe('home-page');
    expect(report.sitemaps).toMatchObject([{ foundVia: { by: 'home-page', parent: null }, findings: [{ rule: 'undeclared', severity: 'notice' }] }]);
    expect(report.sitemaps[0]?.findings[0]?.message).toMatch(/^linked from the home page, but robots.txt does not declare it/);
  });
});

describe('the catalogue', () => {
  it('every rule has a severity and a sentence, and docs/cli.md lists it as the catalogue says', async () => {
    const docs = await readFile(new URL('../../../../docs/cli.md', import.meta.url), 'utf8');
    for (const [rule, { severity, about }] of Object.entries(RULES)) {
      expect(['error', 'warning', 'notice'], rule).toContain(severity);
      expect(about.length, rule).toBeGreaterThan(20);
      expect(docs, rule).toContain(`| \`${rule}\` | ${severity} | ${about} |`);
    }
  });
});
