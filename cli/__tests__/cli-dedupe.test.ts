// Every output format of the built executable deduplicates a sitemap's pages on the normalised URL (scheme and host
// case, default port, fragment) and writes the first spelling normalised; the summary counts what was written.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeTable, startLoopbackServer, type LoopbackServer } from '../../lib/demo/loopback-server.js';
import { urlsetXml } from '../../test/helpers/sitemap-xml.js';
import { BUILT_BIN, ndjson, runCli } from '../../test/helpers/run-cli.js';

let site: LoopbackServer;
let spelled: (path: string) => string;
beforeAll(async () => {
  let routes = {};
  site = await startLoopbackServer((request, response) => routeTable(routes)(request, response));
  // HTTP://127.0.0.1:PORT: the scheme upper-cased (the IP has no case to change).
  spelled = (path) => site.origin.replace('http://', 'HTTP://') + path;
  const locs = [
    `${site.origin}/dup`,
    `${site.origin}/dup`,
    `${site.origin}/dup`,
    spelled('/dup'),
    `${site.origin}/dup#frag`,
    // A page whose first spelling is not normalised: it is written normalised, with the first entry's fields.
    spelled('/other#top'),
    `${site.origin}/other`,
  ];
  routes = {
    '/dup.xml': { body: urlsetXml(locs, (_loc, index) => `<lastmod>2024-01-0${index + 1}</lastmod>`) },
  };
});
afterAll(async () => site.close());

const unique = () => [`${site.origin}/dup`, `${site.origin}/other`];
const walk = (...args: string[]) => runCli(['walk', site.url('/dup.xml'), '--allow-private', ...args], {}, 60_000, BUILT_BIN);

describe('one row per page in every output (the built bin)', () => {
  it('lines', async () => {
    const run = await walk('--summary');
    expect(run.code).toBe(0);
    expect(run.stdout.trim().split('\n')).toEqual(unique());
    expect(run.stderr).toContain('walked 2 URLs from 1 sitemaps');
  });

  it('ndjson, whose summary counts the rows', async () => {
    const run = await walk('--format', 'ndjson');
    const lines = ndjson(run.stdout);
    const urls = lines.filter((line) => line.type === 'url');
    expect(urls.map((line) => line.loc)).toEqual(unique());
    expect(urls.map((line) => line.lastmod)).toEqual(['2024-01-01', '2024-01-06']);
    expect(lines.find((line) => line.type === 'summary')).toMatchObject({ urls: 2 });
  });

  it('csv', async () => {
    const run = await walk('--format', 'csv');
    const rows = run.stdout.split('\r\n').filter((row) => row !== '');
    expect(rows.slice(1).map((row) => row.split(',')[0])).toEqual(unique());
    expect(rows[2]).toBe(`${site.origin}/other,2024-01-06,,,,${site.url('/dup.xml')}`);
  });

  it('json', async () => {
    const run = await walk('--format', 'json', '--summary');
    expect((JSON.parse(run.stdout) as Array<{ loc: string }>).map((entry) => entry.loc)).toEqual(unique());
    expect(run.stderr).toContain('walked 2 URLs from 1 sitemaps');
  });
});
