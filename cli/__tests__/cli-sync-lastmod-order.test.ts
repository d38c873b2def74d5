// A URL two sitemaps list with different lastmods takes the newest, whichever sitemap answers first: an unchanged site
// re-synced reports 0 changed and its history holds only real moves (issue 29, wpcore-eubrand's flapping 49).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoopbackServer, type CannedResponse, type LoopbackServer } from '../../lib/demo/loopback-server.js';
import { useCliSchema } from '../../lib/inventory/__tests__/inventory-fixtures.js';
import { indexXml, pageUrls, urlsetXml, XML } from '../../test/helpers/sitemap-xml.js';
import { runCli } from '../../test/helpers/run-cli.js';

const PAGES = 40;

describe('crawler-factory sync: a URL listed by two sitemaps', () => {
  const { schema, env, admin } = useCliSchema('inv_lastmod');
  let site: LoopbackServer;
  // Which sitemap answers late (so the other one's shard is applied first), and what each says.
  let slow: 'a' | 'b' = 'a';
  const lastmods = { a: '2023-02-15', b: '2022-04-14' };

  beforeAll(async () => {
    site = await startLoopbackServer((request) => {
      const pages = pageUrls(site.origin, PAGES);
      const urlset = (name: 'a' | 'b'): CannedResponse => ({
        headers: XML,
        body: urlsetXml(pages, () => `<lastmod>${lastmods[name]}</lastmod>`),
        delayMs: slow === name ? 400 : 0,
      });
      if (request.url === '/robots.txt') return { body: `Sitemap: ${site.url('/index.xml')}\n` };
      if (request.url === '/index.xml') return { headers: XML, body: indexXml([site.url('/a.xml'), site.url('/b.xml')]) };
      if (request.url === '/a.xml') return urlset('a');
      if (request.url === '/b.xml') return urlset('b');
      return null;
    });
  });
  afterAll(async () => {
    await site?.close();
  });

  async function sync(): Promise<{ state: string; new: number; changed: number; removed: number }> {
    const run = await runCli(['sync', site.origin, '--site', 'two', '--allow-private', '--full'], env, 60_000);
    expect(run.code, run.stderr).toBe(0);
    return JSON.parse(run.stdout) as { state: string; new: number; changed: number; removed: number };
  }
  const stored = async (): Promise<string[]> =>
    (await admin.query<{ lastmod: string }>(`SELECT DISTINCT sitemap_lastmod AS lastmod FROM ${schema}.urls WHERE site_id = 'two'`)).rows.map(
      (row) => row.lastmod,
    );
  const history = async (): Promise<Array<{ old: string; new: string; n: number }>> =>
    (
      await admin.query<{ old: string; new: string; n: number }>(
        `SELECT old_value AS old, new_value AS new, count(*)::int AS n FROM ${schema}.url_history
         WHERE site_id = 'two' AND event = 'lastmod' GROUP BY 1, 2 ORDER BY 1`,
      )
    ).rows;

  it('keeps the newest lastmod whichever answers first, reports 0 changed when nothing moved, and records real moves once', { timeout: 120_000 }, async () => {
    slow = 'a';
    expect(await sync()).toMatchObject({ state: 'done', new: PAGES, changed: 0 });
    expect(await stored()).toEqual(['2023-02-15']);

    // The other order, twice: the older listing is applied first each time.
    slow = 'b';
    expect(await sync()).toMatchObject({ state: 'done', new: 0, changed: 0, removed: 0 });
    slow = 'a';
    expect(await sync()).toMatchObject({ state: 'done', new: 0, changed: 0, removed: 0 });
    expect(await stored()).toEqual(['2023-02-15']);
    expect(await history()).toEqual([]);

    // A real move of the newest listing is one change per URL, against what the URL was before the sync.
    lastmods.a = '2024-06-01';
    expect(await sync()).toMatchObject({ state: 'done', changed: PAGES });
    expect(await stored()).toEqual(['2024-06-01']);
    expect(await history()).toEqual([{ old: '2023-02-15', new: '2024-06-01', n: PAGES }]);
  });
});
