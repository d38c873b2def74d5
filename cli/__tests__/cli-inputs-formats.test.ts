import { gzipSync } from 'node:zlib';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeTable, startLoopbackServer, type CannedResponse, type LoopbackServer } from '../../lib/demo/loopback-server.js';
import { indexXml, pageUrls, urlsetXml } from '../../test/helpers/sitemap-xml.js';
import { ndjson, runMain } from '../../test/helpers/run-cli.js';

let site: LoopbackServer;
let dir: string;
beforeAll(async () => {
  let routes: Record<string, CannedResponse> = {};
  site = await startLoopbackServer((request, response) => routeTable(routes)(request, response));
  routes = {
    '/a.xml': { body: urlsetXml(pageUrls(site.origin, 3), (_loc, index) => (index === 0 ? '<lastmod>2024-02-01</lastmod><priority>0.8</priority>' : '')) },
    '/b.xml': { body: urlsetXml([`${site.origin}/q?x="1",y`]) },
  };
  dir = mkdtempSync(join(tmpdir(), 'cf-cli-'));
});
afterAll(async () => site.close());

const allow = ['--allow-private'];

describe('inputs', () => {
  it('reads URLs from stdin with -', async () => {
    const run = await runMain(['walk', '-', ...allow], { stdin: `${site.url('/a.xml')}\n\n# comment\n${site.url('/b.xml')}\n` });
    expect(run.code).toBe(0);
    expect(run.stdout.trim().split('\n')).toEqual([...pageUrls(site.origin, 3), `${site.origin}/q?x="1",y`]);
  });

  it('reads a local sitemap file, gzipped or not, and fetches the children it lists', async () => {
    const file = join(dir, 'sitemap.xml.gz');
    writeFileSync(file, gzipSync(indexXml([site.url('/a.xml')])));
    const run = await runMain(['walk', file, ...allow]);
    expect(run.code).toBe(0);
    expect(run.stdout.trim().split('\n')).toEqual(pageUrls(site.origin, 3));
  });

  it('adds https:// to a URL without a scheme, with a note on stderr', async () => {
    const run = await runMain(['walk', 'sitemaps.invalid/sitemap.xml', '--timeout', '2000']);
    expect(run.stderr).toContain('no scheme in "sitemaps.invalid/sitemap.xml": using https://sitemaps.invalid/sitemap.xml');
  });

  it.each(['file:///etc/passwd', 'ftp://example.com/sitemap.xml'])('refuses %s with the accepted inputs (exit 2)', async (input) => {
    const run = await runMain(['walk', input]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('accepted inputs: an http:// or https:// URL');
  });

  it('refuses a malformed scheme instead of putting https:// in front of it (exit 2)', async () => {
    const run = await runMain(['walk', 'ht!tp://example.com/']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('not a URL: "ht!tp://example.com/"');
  });

  it.each(['./nonexist.xml', '../nonexist.xml', 'nonexist.xml', '/nonexist/sitemap.xml', './nonexist'])('%s is a missing file, not a host', async (input) => {
    const run = await runMain(['walk', ...allow, input]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`no such file: ${input}`);
  });

  it('-- ends options, so an input may start with a dash', async () => {
    const run = await runMain(['walk', ...allow, '--', '-not-a-file.xml']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('no such file: -not-a-file.xml');
  });
});

describe('output formats', () => {
  it('writes CSV with a header and RFC 4180 quoting', async () => {
    const run = await runMain(['walk', site.url('/a.xml'), site.url('/b.xml'), ...allow, '--format', 'csv']);
    const rows = run.stdout.split('\r\n');
    expect(rows[0]).toBe('url,lastmod,changefreq,priority,locale,source');
    expect(rows[1]).toBe(`${site.origin}/p/0,2024-02-01,,0.8,,${site.url('/a.xml')}`);
    expect(rows[4]).toBe(`"${site.origin}/q?x=""1"",y",,,,,${site.url('/b.xml')}`);
  });

  it('streams one JSON array of entries with --format json', async () => {
    const run = await runMain(['walk', site.url('/a.xml'), ...allow, '--format', 'json']);
    const entries = JSON.parse(run.stdout) as Array<{ loc: string }>;
    expect(entries.map((entry) => entry.loc)).toEqual(pageUrls(site.origin, 3));
  });

  it('writes -o atomically: the file appears on success, and a failed run leaves none', async () => {
    const out = join(dir, 'urls.txt');
    const ok = await runMain(['walk', site.url('/a.xml'), ...allow, '-o', out, '--summary']);
    expect(ok.code).toBe(0);
    expect(readFileSync(out, 'utf8').trim().split('\n')).toEqual(pageUrls(site.origin, 3));
    expect(ok.stderr).toMatch(/walked 3 URLs from 1 sitemaps \(0 errors\) in [\d.]+s -> /);
    const failed = join(dir, 'failed.txt');
    const bad = await runMain(['walk', site.url('/missing.xml'), ...allow, '-o', failed]);
    expect(bad.code).toBe(1);
    expect(existsSync(failed)).toBe(false);
    expect(readdirSync(dir).filter((name) => name.includes('.tmp-'))).toEqual([]);
  });

  it('filters while streaming from the command line', async () => {
    const run = await runMain(['walk', site.url('/a.xml'), ...allow, '--since', '2024-01-01', '--require-lastmod', '--ndjson']);
    expect(
      ndjson(run.stdout)
        .filter((event) => event.type === 'url')
        .map((event) => event.loc),
    ).toEqual([`${site.origin}/p/0`]);
  });

  it('--quiet prints no child errors; without it the summary stays off when stderr is no terminal', async () => {
    const run = await runMain(['walk', site.url('/a.xml'), ...allow, '--quiet']);
    expect(run.stderr).toBe('');
  });
});

describe('errors say what to do next', () => {
  it('blocked_ssrf names --allow-host and FACTORY_ALLOW_HOSTS', async () => {
    const run = await runMain(['walk', site.url('/a.xml')]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('--allow-host');
    expect(run.stderr).toContain('FACTORY_ALLOW_HOSTS');
  });

  it.each([
    ['estimate', 'http://x.test/', '--budget', '100'],
    ['job', 'run', 'http://x.test/', '--budget', '249', '--store', 'memory'],
  ])('refuses a budget below 250 ms: %j', async (...args) => {
    const run = await runMain(args);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--budget');
  });

  it('refuses a hop-by-hop header as a usage error', async () => {
    const run = await runMain(['walk', site.url('/a.xml'), ...allow, '--header', 'Connection: close']);
    expect(run.code).toBe(2);
  });

  it('prints help with no command (exit 0) and suggests a command for a typo (exit 2)', async () => {
    expect((await runMain([])).code).toBe(0);
    const typo = await runMain(['wlak']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('(Did you mean walk?)');
  });
});

describe('serve refuses to expose itself without a token', () => {
  it('exits 2 on a non-loopback host without FACTORY_API_TOKEN or --insecure', async () => {
    const run = await runMain(['serve', '--host', '0.0.0.0', '--port', '0'], { env: { FACTORY_API_TOKEN: '' } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('FACTORY_API_TOKEN');
  });
});
