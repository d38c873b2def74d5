// Nothing dropped in silence: locs a sitemap lists that no output holds (relative, control characters...) are counted
// by reason with an example on the walk's stderr, its NDJSON summary and the estimate's warnings; and the summary's
// `errors` counts every error line, discovery's included.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoopbackServer, type LoopbackServer } from '../../lib/demo/loopback-server.js';
import { estimateScope } from '../../lib/factory/scope/scope-estimator.js';
import { ndjson, runMain } from '../../test/helpers/run-cli.js';

const NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"';
let site: LoopbackServer;

beforeAll(async () => {
  site = await startLoopbackServer((request) => {
    const origin = site.origin;
    if (request.url === '/robots.txt') return { body: `Sitemap: ${origin}/gone.xml\nSitemap: ${origin}/pages.xml\n` };
    if (request.url !== '/pages.xml') return null;
    const locs = [`${origin}/ok`, '/relative-one/', '/relative-two/', `${origin}/ok&#10;http://169.254.169.254/latest/`];
    return {
      headers: { 'content-type': 'application/xml' },
      body: `<?xml version="1.0"?><urlset ${NS}>${locs.map((loc) => `<url><loc>${loc}</loc></url>`).join('')}</urlset>`,
    };
  });
});
afterAll(async () => site?.close());

describe('dropped locs', () => {
  it('are said on stderr by reason with an example, without the summary line and with it', async () => {
    const run = await runMain(['walk', `${site.origin}/`, '--allow-private']);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`${site.origin}/ok\n`);
    expect(run.stderr).toContain('crawler-factory: 3 locs dropped: relative 2 (e.g. /relative-one/), controlCharacters 1 (e.g. ');
    // The control character is shown encoded: the example cannot split a line either.
    expect(run.stderr).toContain('/ok%0Ahttp://169.254.169.254/latest/)');
    const summary = await runMain(['walk', `${site.origin}/`, '--allow-private', '--summary']);
    expect(summary.stderr).toMatch(/walked 1 URLs from 1 sitemaps \(1 error\) in [\d.]+s; 3 locs dropped: relative 2/);
  });

  it('are in the NDJSON sitemap line and summary, whose errors count the error lines', async () => {
    const run = await runMain(['walk', `${site.origin}/`, '--allow-private', '--format', 'ndjson']);
    const lines = ndjson(run.stdout);
    expect(lines.find((line) => line.type === 'sitemap')).toMatchObject({ dropped: 3, drops: { relative: { count: 2, example: '/relative-one/' } } });
    const errors = lines.filter((line) => line.type === 'error');
    expect(errors).toHaveLength(1);
    expect(lines.at(-1)).toMatchObject({
      type: 'summary',
      errors: errors.length,
      dropped: 3,
      drops: { relative: { count: 2 }, controlCharacters: { count: 1 } },
    });
  });

  it('leave the run limit apart: maxUrls reached is a limit line on stderr, not an error', async () => {
    const run = await runMain(['walk', `${site.origin}/pages.xml`, '--allow-private', '--max-urls', '1']);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('limit: maxUrls (1) reached: the run stopped there\n');
    expect(run.stderr).not.toContain('error too_many_urls');
  });

  it('are a warning of the estimate', async () => {
    const estimate = await estimateScope(`${site.origin}/`, { net: { allowPrivate: true } });
    expect(estimate.warnings.join('\n')).toContain(`${site.origin}/pages.xml: 3 locs dropped: relative 2 (e.g. /relative-one/)`);
  });
});
