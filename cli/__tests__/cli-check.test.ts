// `check` as a site owner runs it in CI: the human report, JSON and NDJSON, exit 1 on an error and 0 without one,
// through the command's code path and the built bin.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoopbackServer, type LoopbackServer } from '../../lib/demo/loopback-server.js';
import { SiteCheckSchema } from '../../lib/factory/findings/index.js';
import { BUILT_BIN, ndjson, runCli, runMain } from '../../test/helpers/run-cli.js';

const NS = 'http://www.sitemaps.org/schemas/sitemap/0.9';
const urlset = (locs: string[], ns = NS) => `<?xml version="1.0"?><urlset xmlns="${ns}">${locs.map((loc) => `<url><loc>${loc}</loc></url>`).join('')}</urlset>`;
let site: LoopbackServer;
let dir: string;

beforeAll(async () => {
  site = await startLoopbackServer((request) => {
    const o = site.origin;
    const xml = (body: string) => ({ headers: { 'content-type': 'application/xml' }, body });
    if (request.url === '/robots.txt') return { body: `Sitemap: ${o}/index.xml\n` };
    if (request.url === '/index.xml')
      return xml(
        `<?xml version="1.0"?><sitemapindex xmlns="${NS}"><sitemap><loc>${o}/good.xml</loc></sitemap><sitemap><loc>${o}/gone.xml</loc></sitemap></sitemapindex>`,
      );
    if (request.url === '/good.xml') return xml(urlset([`${o}/a`, `${o}/b`]));
    if (request.url === '/clean.xml') return xml(urlset([`${o}/a`]));
    if (request.url === '/warned.xml') return xml(urlset([`${o}/a`, `${o}/a`]));
    if (request.url === '/wrong-ns.xml') return xml(urlset([`${o}/a`], 'http://www.google.com/schemas/sitemap/0.9'));
    return null;
  });
  dir = await mkdtemp(join(tmpdir(), 'cli-check-'));
});
afterAll(async () => {
  await site?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('crawler-factory check', () => {
  it('reports a site with a failed child: failing first, why, the counts, and exit 1', async () => {
    const run = await runMain(['check', `${site.origin}/`, '--allow-private']);
    expect(run.code).toBe(1);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toMatch(new RegExp(`^check ${site.origin}/ \\(sitemaps from robots.txt, \\d{4}-\\d\\d-\\d\\dT`));
    expect(lines.slice(2, 4)).toEqual([`FAILED ${site.origin}/gone.xml  listed by ${site.origin}/index.xml`, '       http_status: HTTP 404']);
    expect(run.stdout).toContain(`OK     ${site.origin}/good.xml  urlset · 2 URLs · listed by ${site.origin}/index.xml`);
    expect(lines.at(-2)).toBe('3 sitemaps (1 failed) · 1 error, 0 warnings, 0 notices');
  });

  it('exits 0 on warnings and notices alone, 1 on an error, each finding with its examples', async () => {
    const clean = await runMain(['check', `${site.origin}/clean.xml`, '--allow-private']);
    expect(clean.code).toBe(0);
    expect(clean.stdout).toContain('1 sitemap · 0 errors, 0 warnings, 0 notices');
    const warned = await runMain(['check', `${site.origin}/warned.xml`, '--allow-private']);
    expect(warned.code).toBe(0);
    expect(warned.stdout).toContain(`       warning duplicate_loc: 1 loc(s) listed again in this sitemap\n               e.g. ${site.origin}/a\n`);
    const wrong = await runMain(['check', `${site.origin}/wrong-ns.xml`, '--allow-private']);
    expect(wrong.code).toBe(1);
    expect(wrong.stdout).toContain(`error   namespace: <urlset> is in http://www.google.com/schemas/sitemap/0.9, not ${NS}`);
  });

  it('--format json is the report as the library gives it; --format ndjson a line a sitemap, then the summary', async () => {
    const json = await runMain(['check', `${site.origin}/`, '--allow-private', '--format', 'json']);
    const report = SiteCheckSchema.parse(JSON.parse(json.stdout));
    expect(report.counts).toEqual({ sitemaps: 3, failed: 1, errors: 1, warnings: 0, notices: 0 });
    const lines = ndjson((await runMain(['check', `${site.origin}/`, '--allow-private', '--format', 'ndjson'])).stdout);
    expect(lines.map((line) => line.type)).toEqual(['sitemap', 'sitemap', 'sitemap', 'summary']);
    expect(lines[0]).toMatchObject({ url: `${site.origin}/gone.xml`, status: 'failed', failure: { kind: 'http_status', httpStatus: 404 } });
    expect(lines.at(-1)).toMatchObject({ type: 'summary', rootUrl: `${site.origin}/`, discovery: 'robots', sitemaps: 3, failed: 1, errors: 1 });
  });

  it('checks a local sitemap file, and refuses a bad format as a usage error', async () => {
    const file = join(dir, 'sitemap.xml');
    await writeFile(file, urlset(['https://example.com/a', 'https://example.com/a']));
    const local = await runMain(['check', file, '--format', 'ndjson']);
    expect(local.code).toBe(0);
    expect(ndjson(local.stdout)[0]).toMatchObject({ type: 'sitemap', kind: 'urlset', urls: 2, findings: [{ rule: 'duplicate_loc' }] });
    const bad = await runMain(['check', file, '--format', 'csv']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("argument 'csv' is invalid");
  });

  it('runs from the built bin', async () => {
    const run = await runCli(['check', `${site.origin}/clean.xml`, '--allow-private', '--format', 'ndjson'], {}, 30_000, BUILT_BIN);
    expect(run.code, run.stderr).toBe(0);
    expect(ndjson(run.stdout).at(-1)).toMatchObject({ type: 'summary', errors: 0 });
  });
});
