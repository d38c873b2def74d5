// Nothing dropped in silence: locs a sitemap lists that no output holds (relative, control characters...) are counted
// by reason with an example on the walk's stderr, its NDJSON summary and the estimate's warnings; and the summary's
// `errors` counts every error line, discovery's included.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoopbackServer, type LoopbackServer } from '../../lib/demo/loopback-server.js';
import { estimateScope } from '../../lib/factory/scope/scope-estimator.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ndjson, runCli, runMain } from '../../test/helpers/run-cli.js';

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
    // Each sitemap that dropped locs is an error line of its own (no failure: it was read whole), the 404 the other.
    expect(run.stderr).toContain(`error invalid_url ${site.origin}/pages.xml: 3 locs dropped: relative 2 (e.g. /relative-one/)`);
    expect(summary.stderr).toMatch(/walked 1 URLs from 1 sitemaps \(2 errors\) in [\d.]+s; 3 locs dropped: relative 2/);
  });

  it('are in the NDJSON sitemap line and summary, whose errors count the error lines', async () => {
    const run = await runMain(['walk', `${site.origin}/`, '--allow-private', '--format', 'ndjson']);
    const lines = ndjson(run.stdout);
    expect(lines.find((line) => line.type === 'sitemap')).toMatchObject({ dropped: 3, drops: { relative: { count: 2, example: '/relative-one/' } } });
    const errors = lines.filter((line) => line.type === 'error');
    expect(errors.map((line) => [line.kind, line.url, line.readWhole])).toEqual([
      ['http_status', `${site.origin}/gone.xml`, undefined],
      ['invalid_url', `${site.origin}/pages.xml`, true],
    ]);
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

  it('are on the sync record through the built bin: counted among its errors and listed with the example, nothing failed', { timeout: 60_000 }, async () => {
    const folder = await mkdtemp(join(tmpdir(), 'cf-drops-'));
    try {
      const run = await runCli(['sync', `${site.origin}/`, '--site', 'drops', '--allow-private', '--db', folder], { DATABASE_URL: '', REDIS_URL: '' });
      expect(run.code, run.stderr).toBe(0);
      const sync = JSON.parse(run.stdout) as Record<string, unknown>;
      expect(sync).toMatchObject({ state: 'done', seen: 1, errors: { http_status: 1, invalid_url: 1 } });
      expect(sync.reportedSitemaps).toEqual([
        {
          url: `${site.origin}/pages.xml`,
          kind: 'invalid_url',
          message: expect.stringContaining('3 locs dropped: relative 2 (e.g. /relative-one/), controlCharacters 1'),
        },
      ]);
      expect(sync.failedSitemaps).toEqual([expect.objectContaining({ url: `${site.origin}/gone.xml`, kind: 'http_status' })]);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});
