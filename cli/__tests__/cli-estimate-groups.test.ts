import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoopbackServer, routeTable, type CannedResponse, type LoopbackServer } from '../../lib/demo/loopback-server.js';
import { PathGroupSchema, ScopeEstimateSchema } from '../../lib/core/types.js';
import { indexXml, pageUrls, urlsetXml } from '../../test/helpers/sitemap-xml.js';
import { ndjson, runCli } from '../../test/helpers/run-cli.js';

// A small localised site: an index of two urlsets and a child that is gone.
let site: LoopbackServer;
beforeAll(async () => {
  let routes: Record<string, CannedResponse> = {};
  site = await startLoopbackServer((request, response) => routeTable(routes)(request, response));
  const docs = [...pageUrls(site.origin, 40, 'en-us/docs'), ...pageUrls(site.origin, 20, 'de-de/docs')];
  const misc = [...pageUrls(site.origin, 25, 'blog'), `${site.origin}/about`, `${site.origin}/jobs/1`, `${site.origin}/jobs/2`];
  routes = {
    '/robots.txt': { body: 'User-agent: *\nSitemap: /index.xml\n' },
    '/index.xml': { body: indexXml([`${site.origin}/docs.xml`, `${site.origin}/misc.xml`, `${site.origin}/gone.xml`]) },
    '/docs.xml': { body: urlsetXml(docs) },
    '/misc.xml': { body: urlsetXml(misc) },
  };
});
afterAll(async () => site.close());

describe('crawler-factory estimate', () => {
  it('prints the ScopeEstimate as pretty JSON and exits 0', async () => {
    const run = await runCli(['estimate', `${site.origin}/`, '--allow-private']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^\{\n {2}"rootUrl"/);
    const estimate = ScopeEstimateSchema.parse(JSON.parse(run.stdout));
    expect(estimate).toMatchObject({
      rootUrl: `${site.origin}/`,
      sitemaps: [site.url('/index.xml')],
      subSitemapCount: 3,
      transport: 'fetch',
      languagesDetected: ['de-DE', 'en-US'],
    });
    // The gone child may or may not be among the samples; the two that answer are sampled either way.
    expect(estimate.sampledChildren).toBeGreaterThanOrEqual(2);
    expect(estimate.requests).toBeLessThanOrEqual(5);
  });

  it('takes --budget and prints one line with --ndjson', async () => {
    const run = await runCli(['estimate', `${site.origin}/`, '--allow-private', '--budget', '1500', '--ndjson'], { LOG_LEVEL: 'info' });
    expect(run.code).toBe(0);
    expect(run.stdout.trim().split('\n')).toHaveLength(1);
    expect(ScopeEstimateSchema.parse(JSON.parse(run.stdout)).subSitemapCount).toBe(3);
    // Logs go to stderr, so stdout stays one JSON line; the log says which budget the probe had.
    expect(run.stderr).toContain('"event":"scope_estimated"');
    expect(run.stderr).toContain('"budgetMs":1500');
  });

  it.each([
    [['estimate']],
    [['estimate', 'http://x/', 'http://y/']],
    [['estimate', 'http://x/', '--budget', 'soon']],
    [['estimate', 'http://x/', '--budget', '0']],
  ])('exits 2 on a usage error: %j', async (args) => {
    const run = await runCli(args);
    expect(run.code).toBe(2);
    expect(run.stderr.length).toBeGreaterThan(0);
  });

  it('exits 1 with the kind on stderr when the target is refused', async () => {
    const run = await runCli(['estimate', `${site.origin}/`]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('blocked_ssrf');
    expect(run.stdout).toBe('');
  });
});

describe('crawler-factory groups', () => {
  it('prints path groups as NDJSON from a site root, locales folded, `other` last, failing child on stderr', async () => {
    const run = await runCli(['groups', `${site.origin}/`, '--allow-private']);
    expect(run.code).toBe(0);
    const groups = ndjson(run.stdout).map((line) => PathGroupSchema.parse(line));
    expect(groups.map((group) => [group.prefix, group.count, group.locales])).toEqual([
      ['/docs/*', 60, ['de-DE', 'en-US']],
      ['/blog/*', 25, []],
      ['other', 3, []],
    ]);
    expect(groups.reduce((sum, group) => sum + group.count, 0)).toBe(88);
    expect(groups.every((group) => group.samples.length <= 10)).toBe(true);
    expect(run.stderr).toContain('http_status');
  });

  it('groups a sitemap URL directly', async () => {
    const run = await runCli(['groups', site.url('/misc.xml'), '--allow-private']);
    expect(run.code).toBe(0);
    expect(ndjson(run.stdout).map((group) => group.prefix)).toEqual(['/blog/*', 'other']);
  });

  it('exits 1 when the root sitemap fails, 2 without a <url>', async () => {
    const missing = await runCli(['groups', site.url('/missing.xml'), '--allow-private']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('http_status');
    expect((await runCli(['groups'])).code).toBe(2);
  });

  it('is listed in the help with estimate', async () => {
    const run = await runCli(['--help']);
    expect(run.stdout).toContain('estimate [options] <rootUrl>');
    expect(run.stdout).toContain('groups [options] <input>');
  });
});
