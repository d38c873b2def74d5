import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { isPathAllowed, parseRobotsTxt, robotsPatternMatches } from '../robots-rules.js';

const ROBOTS_URL = 'https://example.com/robots.txt';
const UA = 'AlgoliaCentralFactory/1.0';

describe('parseRobotsTxt', () => {
  it('reads Sitemap lines in any case, resolves relative ones and dedupes', () => {
    const content = [
      'SITEMAP: https://example.com/a.xml',
      'sitemap:/b.xml',
      'Sitemap :   https://EXAMPLE.com/a.xml   ',
      'sItEmAp: https://cdn.example.net/c.xml.gz # a comment',
    ].join('\n');
    expect(parseRobotsTxt(content, ROBOTS_URL, UA).sitemaps).toEqual([
      'https://example.com/a.xml',
      'https://example.com/b.xml',
      'https://cdn.example.net/c.xml.gz',
    ]);
  });

  it('reads the Site-map spelling of the key in any case, like Sitemap', () => {
    const content = ['Site-map: https://example.com/a.xml', 'SITE-MAP:/b.xml', 'site-Map : https://example.com/c.xml'].join('\n');
    expect(parseRobotsTxt(content, ROBOTS_URL, UA).sitemaps).toEqual(['https://example.com/a.xml', 'https://example.com/b.xml', 'https://example.com/c.xml']);
  });

  it('tolerates a UTF-8 BOM and CRLF line ends', () => {
    const content = '\uFEFFSitemap: https://example.com/bom.xml\r\nUser-agent: *\r\nDisallow: /private\r\n';
    const robots = parseRobotsTxt(content, ROBOTS_URL, UA);
    expect(robots.sitemaps).toEqual(['https://example.com/bom.xml']);
    expect(robots.rules).toEqual([{ allow: false, pattern: '/private' }]);
  });

  it('takes Sitemap lines from inside any group, and reports lines that are not URLs', () => {
    const content = 'User-agent: Googlebot\nSitemap: /inside.xml\nDisallow: /\nSitemap: javascript:alert(1)\n';
    const robots = parseRobotsTxt(content, ROBOTS_URL, UA);
    expect(robots.sitemaps).toEqual(['https://example.com/inside.xml']);
    expect(robots.invalidSitemapLines).toEqual(['javascript:alert(1)']);
    expect(robots.rules).toEqual([]);
  });

  it('uses the group naming our product token over the * group, and its Crawl-delay', () => {
    const content = 'User-agent: *\nDisallow: /\nCrawl-delay: 30\n\nUser-agent: algoliacentralfactory\nUser-agent: other\nAllow: /\nCrawl-delay: 2\n';
    const robots = parseRobotsTxt(content, ROBOTS_URL, UA);
    expect(robots.rules).toEqual([{ allow: true, pattern: '/' }]);
    expect(robots.crawlDelaySeconds).toBe(2);
  });
});

describe('isPathAllowed (RFC 9309 matching)', () => {
  const rules = [
    { allow: false, pattern: '/private' },
    { allow: true, pattern: '/private/open' },
    { allow: false, pattern: '/*.gz$' },
  ];

  it('lets the longest match win', () => {
    expect(isPathAllowed(rules, '/private/x')).toBe(false);
    expect(isPathAllowed(rules, '/private/open/sitemap.xml')).toBe(true);
  });

  it('supports * wildcards and the $ anchor', () => {
    expect(isPathAllowed(rules, '/sitemap.xml.gz')).toBe(false);
    expect(isPathAllowed(rules, '/sitemap.xml.gz.html')).toBe(true);
  });

  it('allows what no rule matches, and prefers Allow on a tie', () => {
    expect(isPathAllowed(rules, '/sitemap.xml')).toBe(true);
    expect(
      isPathAllowed(
        [
          { allow: false, pattern: '/a' },
          { allow: true, pattern: '/a' },
        ],
        '/a',
      ),
    ).toBe(true);
  });
});

describe('robots.txt wildcards match without backtracking', () => {
  it('answers a hostile rule at once on a 2,048-character path', () => {
    const rules = [{ allow: false, pattern: `/${'*a'.repeat(200)}!` }];
    const started = performance.now();
    expect(isPathAllowed(rules, `/${'a'.repeat(2_047)}`)).toBe(true);
    expect(performance.now() - started).toBeLessThan(200);
  });

  it('agrees with the regular expression RFC 9309 describes on every generated case', () => {
    const part = fc.constantFrom('a', 'b', '/', '*', 'ab');
    fc.assert(
      fc.property(fc.array(part, { maxLength: 6 }), fc.boolean(), fc.stringMatching(/^[ab/]{0,10}$/), (parts, anchored, text) => {
        const pattern = `/${parts.join('')}${anchored ? '$' : ''}`;
        const body = `/${parts.join('')}`.split('*').join('.*');
        const regex = new RegExp(`^${body}${anchored ? '$' : ''}`);
        expect(robotsPatternMatches(pattern, `/${text}`)).toBe(regex.test(`/${text}`));
      }),
    );
  });
});
