import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoopbackServer, type LoopbackServer } from '../../lib/demo/loopback-server.js';
import { pageUrls, urlsetXml, XML } from '../../test/helpers/sitemap-xml.js';
import { ndjson, runMain } from '../../test/helpers/run-cli.js';

let site: LoopbackServer;
let dir: string;
// b's content changes between runs: its lastmod in the index moves with it.
let bVersion = 1;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cf-validators-'));
  site = await startLoopbackServer((request) => {
    const path = request.url ?? '/';
    if (path === '/index.xml') {
      const child = (name: string, lastmod: string) => `<sitemap><loc>${site.origin}/${name}.xml</loc><lastmod>${lastmod}</lastmod></sitemap>`;
      return {
        headers: XML,
        body: `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${child('a', '2026-01-01')}${child('b', `2026-01-0${bVersion}`)}</sitemapindex>`,
      };
    }
    if (path === '/a.xml') return { headers: { ...XML, etag: '"a"' }, body: urlsetXml(pageUrls(site.origin, 2, 'a')) };
    if (path === '/b.xml') return { headers: XML, body: urlsetXml(pageUrls(site.origin, bVersion, 'b')) };
    return null;
  });
});
afterAll(async () => {
  await site.close();
  await rm(dir, { recursive: true, force: true });
});

describe('crawler-factory walk --validators', () => {
  it('writes the validators after a complete walk, then prints only what changed and reports the rest unchanged', async () => {
    const file = join(dir, 'v.json');
    const first = await runMain(['walk', site.url('/index.xml'), '--allow-private', '--validators', file]);
    expect(first.code).toBe(0);
    expect(first.stdout.trim().split('\n').sort()).toEqual([...pageUrls(site.origin, 2, 'a'), ...pageUrls(site.origin, 1, 'b')].sort());
    const stored = JSON.parse(await readFile(file, 'utf8')) as { v: number; sitemaps: Record<string, unknown> };
    expect(stored.v).toBe(1);
    expect(Object.keys(stored.sitemaps)).toHaveLength(2);

    bVersion = 2;
    const second = await runMain(['walk', site.url('/index.xml'), '--allow-private', '--validators', file, '--ndjson']);
    const events = ndjson(second.stdout);
    expect(events.filter((event) => event.type === 'url').map((event) => event.loc)).toEqual(pageUrls(site.origin, 2, 'b'));
    expect(events.filter((event) => event.type === 'sitemap' && event.unchanged === true).map((event) => event.url)).toEqual([site.url('/a.xml')]);
    expect(site.hits('/a.xml')).toBe(1);

    const full = await runMain(['walk', site.url('/index.xml'), '--allow-private', '--validators', file, '--full', '--summary']);
    expect(full.stdout.trim().split('\n')).toHaveLength(4);
    expect(site.hits('/a.xml')).toBe(2);
    expect(full.stderr).toContain('walked 4 URLs from 3 sitemaps (0 errors)');
  });

  it('refuses a file that is not a validators file (exit 2) and leaves it alone', async () => {
    const file = join(dir, 'foreign.json');
    await writeFile(file, '{"hello":1}');
    const run = await runMain(['walk', site.url('/index.xml'), '--allow-private', '--validators', file]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('is not a validators file');
    expect(await readFile(file, 'utf8')).toBe('{"hello":1}');
  });

  it('does not write the validators when the walk fails', async () => {
    const file = join(dir, 'failed.json');
    const run = await runMain(['walk', site.url('/missing.xml'), '--allow-private', '--validators', file]);
    expect(run.code).toBe(1);
    await expect(readFile(file, 'utf8')).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
