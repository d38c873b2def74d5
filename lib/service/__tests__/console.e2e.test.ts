// The ops console in headless Chromium (Debian's /usr/bin/chromium driven by playwright-core) against the built
// `crawler-factory serve` (dist/cli/bin.js, run from another working directory, as an installed package runs) and a
// loopback site: add a site, estimate, sync to done (no double start), stop a second sync, browse by prefix; the header's
// health (queue, running and due syncs); state badges and a chart with its table of the site's syncs; a progress bar
// from the click on; counts that move while a sync runs; 50,000 URLs streamed to disk through a signed link; errors shown
// next to their control.
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../test/helpers/redis-server.js';
import { type MutableSite, startMutableSite, useTestSchema } from '../../inventory/__tests__/inventory-fixtures.js';
import { BUILT_BIN, startServe, type ServeProcess } from './serve-process.js';

const CHROMIUM = '/usr/bin/chromium';
const TOKEN = 'console-e2e-token';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  // performance.memory in exact bytes (not bucketed), to show a download does not pass through the page's heap.
  '--enable-precise-memory-info',
];

interface SyncBody {
  syncId: string;
  state: string;
  seen: number;
  removed: number;
}

describe('ops console in Chromium', () => {
  const { schema, databaseUrl, admin } = useTestSchema('inv_e2e');
  let site: MutableSite;
  let serve: ServeProcess;
  let context: BrowserContext;
  let page: Page;
  let profile: string;
  let elsewhere: string;
  const api = async <T>(path: string, body?: unknown): Promise<T> =>
    (await (
      await fetch(`${serve.origin}${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      })
    ).json()) as T;
  // Opens a site from the site list's search.
  const openSite = async (siteId: string) => {
    await page.getByRole('searchbox', { name: 'Search sites' }).fill(siteId);
    await expect.poll(() => page.locator('#sites-range').textContent(), { timeout: 15_000 }).toContain(`matching “${siteId}”`);
    await page.getByRole('button', { name: `Open ${siteId}`, exact: true }).click();
    await expect.poll(() => page.locator('#site-title').textContent(), { timeout: 15_000 }).toBe(`Site ${siteId}`);
  };

  beforeAll(async () => {
    site = await startMutableSite(3_000, 100);
    elsewhere = await mkdtemp(join(tmpdir(), 'console-e2e-cwd-'));
    serve = await startServe({
      port: await freePort(),
      bin: BUILT_BIN,
      cwd: elsewhere,
      env: {
        DATABASE_URL: databaseUrl,
        FACTORY_API_TOKEN: TOKEN,
        FACTORY_ALLOW_PRIVATE: '1',
      },
    });
    profile = await mkdtemp(join(tmpdir(), 'console-e2e-profile-'));
    // No skip: a Chromium that cannot start fails the test.
    context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
    page = context.pages()[0] ?? (await context.newPage());
  }, 120_000);
  afterAll(async () => {
    await context?.close();
    await serve?.stop();
    await site?.close();
    if (profile) await rm(profile, { recursive: true, force: true });
    if (elsewhere) await rm(elsewhere, { recursive: true, force: true });
  });

  it('adds a site after its estimate, syncs it to done, stops a second sync and browses by prefix', { timeout: 300_000 }, async () => {
    await page.goto(`${serve.origin}/`);
    await page.getByLabel('API token').fill(TOKEN);
    await page.getByRole('button', { name: 'Use token' }).click();
    const health = page.getByRole('region', { name: 'Service health' });
    // The engine is serve's: the in-process loop, or pg-boss's worker on Postgres.
    await expect
      .poll(() => health.textContent(), { timeout: 15_000 })
      .toMatch(/^Service ok · store memory ok · database postgres ok · queue (in-process|pg-boss), depth 0 · 0 running syncs · 0 due syncs · 0 sites$/);

    await page.getByLabel('Root URL', { exact: true }).fill(site.rootUrl);
    await page.getByLabel('Site id (optional)').fill('e2e');
    await page.getByRole('button', { name: 'Estimate', exact: true }).click();
    await expect.poll(() => page.locator('#estimate-figures').textContent(), { timeout: 60_000 }).toContain('Sub-sitemaps');
    expect(await page.locator('#estimate-figures').textContent()).toContain('30');
    await page.getByRole('button', { name: 'Add site' }).click();
    await expect.poll(() => page.locator('#site-title').textContent(), { timeout: 30_000 }).toBe('Site e2e');

    // The start is held at the network: from the click until its first status, the button is disabled (a second
    // click starts nothing) and the status says running.
    const status = page.getByRole('status');
    const syncButton = page.getByRole('button', { name: 'Sync Sitemap', exact: true });
    const starts: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url().endsWith('/api/factory/sites/e2e/sync')) starts.push(request.url());
    });
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/api/factory/sites/e2e/sync', async (route) => (await held, await route.continue()));
    await syncButton.click();
    expect(await syncButton.isDisabled()).toBe(true);
    expect(await status.textContent()).toContain('running');
    await syncButton.click({ force: true, timeout: 2_000 });
    expect(await syncButton.isDisabled()).toBe(true);
    release();
    await expect.poll(() => status.textContent(), { timeout: 180_000, interval: 500 }).toMatch(/: done /);
    await page.unroute('**/api/factory/sites/e2e/sync');
    expect(starts).toHaveLength(1);
    expect(await syncButton.isDisabled()).toBe(false);
    const { syncs } = await api<{ syncs: SyncBody[] }>('/api/factory/sites/e2e/syncs');
    expect(syncs[0]).toMatchObject({ state: 'done', seen: 3_000 });
    expect(await status.textContent()).toContain(`${syncs[0]!.syncId}: done — ${syncs[0]!.seen} URLs`);
    const { sites } = await api<{ sites: Array<{ siteId: string; urlCount: number }> }>('/api/factory/sites');
    const row = page.locator('#sites-table tbody tr', { hasText: 'e2e' });
    await expect.poll(() => row.locator('td').nth(2).textContent()).toBe(String(sites.find((s) => s.siteId === 'e2e')?.urlCount));
    await expect.poll(() => health.textContent(), { timeout: 20_000 }).toMatch(/ · 1 site$/);
    // The row's badge and result; the site page's chart and its table say the same of the sync.
    const lastSync = row.locator('td').nth(3);
    await expect.poll(() => lastSync.textContent()).toMatch(/^done \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC · 3,000 new, 0 changed, 0 removed$/);
    expect(await lastSync.locator('.badge').textContent()).toBe('done');
    const trendRows = () => page.getByRole('table', { name: 'URL count and changes by finished sync, oldest first' }).locator('tbody tr').allInnerTexts();
    await expect.poll(trendRows).toEqual([expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}\t3,000\t3,000\t0\t0\t0$/)]);
    expect(
      await page
        .getByRole('img', { name: /^URL count and changes over the last 1 finished sync / })
        .locator('circle')
        .count(),
    ).toBe(1);

    // A slow site keeps the second sync running long enough to stop it from the page.
    site.delayMs = 1_500;
    await page.getByRole('button', { name: 'Sync Sitemap', exact: true }).click();
    await expect.poll(() => status.textContent(), { timeout: 60_000, interval: 200 }).toMatch(/: running /);
    await page.getByRole('button', { name: 'Stop', exact: true }).click();
    await expect.poll(() => status.textContent(), { timeout: 60_000 }).toMatch(/: stopped /);
    await expect.poll(() => lastSync.locator('.badge').textContent(), { timeout: 15_000 }).toBe('stopped');
    site.delayMs = 0;
    const after = await api<{ syncs: SyncBody[] }>('/api/factory/sites/e2e/syncs');
    expect(after.syncs[0]).toMatchObject({ state: 'stopped', removed: 0 });
    expect(await status.textContent()).toContain('stopped by request');

    // A sitemap answering 503: the sync ends done, keeps its 100 URLs, and the page names it.
    site.failing.add('/sm-3.xml');
    await page.getByRole('button', { name: 'Sync Sitemap', exact: true }).click();
    await expect.poll(() => status.textContent(), { timeout: 180_000, interval: 500 }).toMatch(/: done /);
    expect(await status.textContent()).toContain('0 removed, 0 kept unchanged, 100 kept because their sitemap failed');
    await expect.poll(() => page.locator('#sync-failures').textContent(), { timeout: 30_000 }).toContain(`${site.origin}/sm-3.xml — http_status 503`);
    // The Sitemaps view: the failing one first with its badge, the index and its 30 children, its findings and reads.
    const sitemaps = page.getByRole('table', { name: "The site's sitemaps, failing first" });
    await expect.poll(() => page.locator('#sitemaps-summary').textContent(), { timeout: 30_000 }).toBe('31 sitemaps: 1 failed, 0 with issues, 30 ok');
    const firstSitemap = sitemaps.locator('tbody tr').first();
    expect(await firstSitemap.locator('.badge').textContent()).toBe('failed');
    expect(await firstSitemap.locator('td').nth(1).textContent()).toBe(`${site.origin}/sm-3.xml`);
    expect(await firstSitemap.locator('td').nth(5).textContent()).toBe('1');
    expect(await page.locator('#sitemap-tree > ul > li').count()).toBe(1);
    expect(await page.locator('#sitemap-tree > ul > li > ul > li').count()).toBe(30);
    await page.getByRole('button', { name: `Findings of ${site.origin}/sm-3.xml` }).click();
    await expect.poll(() => page.getByRole('list', { name: 'Findings' }).textContent(), { timeout: 15_000 }).toContain('failed: http_status: HTTP 503');
    const readsChart = page.getByRole('img', { name: `URL count of ${site.origin}/sm-3.xml over its last 2 reads` });
    expect(await readsChart.locator('circle title').allTextContents()).toEqual([
      expect.stringMatching(/: ok, 100 URLs$/),
      expect.stringMatching(/: failed, 100 URLs$/),
    ]);
    site.failing.clear();
    // Two syncs done (the stopped one is no point of the chart); the second kept every URL, 100 of them unread.
    await expect.poll(trendRows).toEqual([expect.stringMatching(/\t3,000\t3,000\t0\t0\t0$/), expect.stringMatching(/\t3,000\t0\t0\t0\t0$/)]);
    const chart = page.getByRole('img', { name: /^URL count and changes over the last 2 finished syncs/ });
    expect(await chart.locator('circle').count()).toBe(2);
    expect(await chart.locator('circle title').allTextContents()).toEqual(['3,000 URLs', '3,000 URLs']);

    await page.getByLabel('Path group', { exact: true }).fill('/blog/');
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(async () => (await page.locator('#urls-table tbody td.url').allTextContents()).every((url) => url.includes('/blog/'))).toBe(true);
    const urls = await page.locator('#urls-table tbody td.url').allTextContents();
    expect(urls).toHaveLength(100);
    expect(await page.getByRole('columnheader', { name: 'URL', exact: true }).count()).toBe(1);
    const firstPage = await api<{ urls: Array<{ url: string }> }>(`/api/factory/sites/e2e/urls?prefix=${encodeURIComponent('/blog/')}&limit=100`);
    expect(urls).toEqual(firstPage.urls.map((entry) => entry.url));

    // The schedule: off in the list at first, set to daily on the site page, then shown in the list with its next sync.
    const scheduleCell = row.locator('td').nth(4);
    expect(await page.getByRole('columnheader', { name: 'Schedule', exact: true }).count()).toBe(1);
    expect(await scheduleCell.textContent()).toBe('off');
    await page.getByLabel('Schedule', { exact: true }).selectOption('24h');
    await expect.poll(() => scheduleCell.textContent(), { timeout: 15_000 }).toMatch(/^24h, next \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/);
    const scheduled = await api<{ schedule: string; nextSyncAt: string }>('/api/factory/sites/e2e');
    expect(scheduled.schedule).toBe('24h');
    expect(await page.locator('#next-sync').textContent()).toBe(`Next sync ${scheduled.nextSyncAt.slice(0, 16).replace('T', ' ')} UTC`);

    await mkdir('.tmp', { recursive: true });
    await page.screenshot({ path: '.tmp/console-e2e.png', fullPage: true });
  });

  it('pages 2,000 sites 50 at a time, searches them, and keeps an error in view wherever it happened', { timeout: 120_000 }, async () => {
    await admin.query(
      `INSERT INTO ${schema}.sites (site_id, root_url, created_at)
       SELECT 'bulk-' || lpad(n::text, 4, '0'), 'https://bulk' || n || '.example/', now() + n * interval '1 millisecond' FROM generate_series(0, 1999) n`,
    );
    await page.reload();
    const ids = () => page.locator('#sites-table tbody tr td:first-child').allTextContents();
    const range = page.locator('#sites-range');
    await expect.poll(ids, { timeout: 30_000 }).toHaveLength(50);
    expect((await ids())[0]).toBe('e2e');
    expect(await range.textContent()).toBe('Sites 1–50');
    const badges = await page.locator('#sites-table tbody tr td:nth-child(4) .badge').allTextContents();
    expect(badges[0]).toBe('done');
    expect(new Set(badges.slice(1))).toEqual(new Set(['never']));
    const previous = page.getByRole('button', { name: 'Previous sites' });
    expect(await previous.isDisabled()).toBe(true);

    // A fleet's failing sitemaps first: two of bulk-1500's, then one each of e2e's (its 503 child) and bulk-0700's.
    await admin.query(
      `INSERT INTO ${schema}.sitemaps (site_id, url, status) VALUES
       ('bulk-1500', 'https://bulk1500.example/a.xml', 'failed'), ('bulk-1500', 'https://bulk1500.example/b.xml', 'failed'),
       ('bulk-0700', 'https://bulk700.example/a.xml', 'failed'), ('bulk-0700', 'https://bulk700.example/b.xml', 'ok')`,
    );
    await page.getByLabel('Failing sitemaps first').check();
    await expect.poll(async () => (await ids()).slice(0, 4)).toEqual(['bulk-1500', 'e2e', 'bulk-0700', 'bulk-0000']);
    const failingCells = await page.locator('#sites-table tbody tr td:nth-child(6)').allTextContents();
    expect(failingCells.slice(0, 4)).toEqual(['2', '1', '1', '0']);
    await page.getByRole('button', { name: 'Next sites' }).click();
    await expect.poll(async () => (await ids())[0]).toBe('bulk-0047');
    await previous.click();
    await page.getByLabel('Failing sitemaps first').uncheck();
    await expect.poll(async () => (await ids())[0]).toBe('e2e');

    await page.getByRole('button', { name: 'Next sites' }).click();
    await expect.poll(() => range.textContent()).toBe('Sites 51–100');
    expect(await ids()).toEqual(Array.from({ length: 50 }, (_, i) => `bulk-${String(i + 49).padStart(4, '0')}`));
    await previous.click();
    await expect.poll(() => range.textContent()).toBe('Sites 1–50');

    // Typing searches by itself (id or root URL, any case); 100 matches are two pages.
    await page.getByRole('searchbox', { name: 'Search sites' }).fill('BULK-19');
    await expect.poll(() => range.textContent()).toBe('Sites 1–50 matching “BULK-19”');
    expect(await ids()).toEqual(Array.from({ length: 50 }, (_, i) => `bulk-${1900 + i}`));
    await page.getByRole('button', { name: 'Next sites' }).click();
    await expect.poll(() => range.textContent()).toBe('Sites 51–100 matching “BULK-19”');
    expect(await page.getByRole('button', { name: 'Next sites' }).isDisabled()).toBe(true);
    await page.getByRole('searchbox', { name: 'Search sites' }).fill('nothing-like-this');
    await page.getByRole('searchbox', { name: 'Search sites' }).press('Enter');
    await expect.poll(() => range.textContent()).toBe('No site matches “nothing-like-this”');

    // A refused filter at the bottom of the page: the banner shows where the operator is, not above the fold.
    await page.getByRole('searchbox', { name: 'Search sites' }).fill('e2e');
    await expect.poll(() => range.textContent()).toBe('Sites 1–1 matching “e2e”');
    await page.getByRole('button', { name: 'Open e2e' }).click();
    await page.getByLabel('Path group', { exact: true }).fill('blog');
    await page.getByRole('button', { name: 'Filter' }).click();
    const banner = page.getByRole('alert');
    await expect.poll(() => banner.textContent()).toContain('prefix');
    const inView = await banner.evaluate((element) => {
      const box = element.getBoundingClientRect();
      const view = globalThis as unknown as { innerHeight: number; scrollY: number }; // the page's window
      return { top: box.top, bottom: box.bottom, viewport: view.innerHeight, scrolled: view.scrollY };
    });
    expect(inView.scrolled).toBeGreaterThan(0);
    expect(inView.top).toBeGreaterThanOrEqual(0);
    expect(inView.bottom).toBeLessThanOrEqual(inView.viewport);
    await page.screenshot({ path: '.tmp/console-e2e-sites.png' });
  });

  it('refreshes the URL list, the last syncs and the site row while a sync runs, and stops when it ends', { timeout: 240_000 }, async () => {
    const slow = await startMutableSite(3_000, 100);
    try {
      await api('/api/factory/sites', { rootUrl: slow.rootUrl, siteId: 'live' });
      slow.delayMs = 1_500;
      await page.reload();
      await openSite('live');
      const urlRequests: string[] = [];
      page.on('request', (request) => {
        if (request.url().includes('/api/factory/sites/live/urls')) urlRequests.push(request.url());
      });
      const status = page.getByRole('status');
      const row = page.locator('#sites-table tbody tr', { hasText: 'live' });
      const siteCounts = new Set<string>();
      const seenCounts = new Set<string>();
      const urlRows = new Set<number>();
      const progressTexts = new Set<string>();
      const badges = new Set<string>();
      const progress = page.getByRole('progressbar', { name: 'Sync progress', exact: true });
      await page.getByRole('button', { name: 'Sync Sitemap', exact: true }).click();
      // The bar shows from the click, before the sync's first status.
      expect(await progress.isVisible()).toBe(true);
      expect(await progress.getAttribute('aria-valuetext')).toBe('starting');
      // Sampled while the status still says running: the page was never reloaded.
      for (;;) {
        const [text, count, seen, rows, bar, badge] = await Promise.all([
          status.textContent(),
          row.locator('td').nth(2).textContent(),
          page.locator('#syncs-table tbody tr').first().locator('td').nth(3).textContent(),
          page.locator('#urls-table tbody tr').count(),
          progress.getAttribute('aria-valuetext', { timeout: 1_000 }).catch(() => null),
          row.locator('.badge').textContent(),
        ]);
        if (!text?.includes(': running ')) {
          if (text?.includes(': done ')) break;
          await new Promise((resolve) => setTimeout(resolve, 100));
          continue;
        }
        siteCounts.add(count ?? '');
        seenCounts.add(seen ?? '');
        urlRows.add(rows);
        if (bar !== null) progressTexts.add(bar);
        if (badge !== null) badges.add(badge);
        await new Promise((resolve) => setTimeout(resolve, 150));
      }
      expect(await status.textContent()).toMatch(/: done — 3000 URLs/);
      const moving = (values: Set<string>) => [...values].filter((value) => /^\d+$/.test(value) && value !== '0' && value !== '3000');
      expect(moving(siteCounts).length).toBeGreaterThanOrEqual(1);
      expect(moving(seenCounts).length).toBeGreaterThanOrEqual(1);
      expect(urlRows.has(100)).toBe(true);
      // The bar counted sitemaps done of those known (the index and its 30), the URLs and their rate as the sync went; the row's badge said running.
      const counted = [...progressTexts].filter((words) => /^\d+ of 31 sitemaps · [\d,]+ URLs · [\d,]+ URLs\/s$/.test(words));
      expect(counted.length, [...progressTexts].join(' | ')).toBeGreaterThanOrEqual(1);
      expect(badges.has('running')).toBe(true);
      expect(await progress.count()).toBe(0);
      await expect.poll(() => row.locator('td').nth(2).textContent(), { timeout: 15_000 }).toBe('3000');
      // Once done, nothing more is fetched for the list.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const settled = urlRequests.length;
      await new Promise((resolve) => setTimeout(resolve, 5_000));
      expect(urlRequests.length).toBe(settled);
    } finally {
      await slow.close();
    }
  });

  it('streams 50,000 URLs to disk as NDJSON and CSV through a signed link, and shows each error next to its control', { timeout: 240_000 }, async () => {
    await admin.query(`INSERT INTO ${schema}.sites (site_id, root_url, created_at) VALUES ('big', 'https://big.example/', now())`);
    await admin.query(
      `INSERT INTO ${schema}.urls (site_id, url, source_sitemap, path_prefix, first_seen_at, last_seen_at, sitemap_synced_at, changed_at, last_sync_id)
       SELECT 'big', 'https://big.example/' || (CASE WHEN n % 2 = 0 THEN 'blog' ELSE 'docs' END) || '/p-' || lpad(n::text, 5, '0'),
              'https://big.example/sitemap.xml', CASE WHEN n % 2 = 0 THEN '/blog/' ELSE '/docs/' END, now(), now(), now(), now(), 'seed'
       FROM generate_series(0, 49999) n`,
    );
    await page.reload();
    await openSite('big');
    const fetches: string[] = [];
    page.on('request', (request) => {
      if (['fetch', 'xhr'].includes(request.resourceType()) && /\/urls\?.*(format=|download=)/.test(request.url())) fetches.push(request.url());
    });
    const downloadFile = async (name: string) => {
      const [download] = await Promise.all([page.waitForEvent('download', { timeout: 60_000 }), page.getByRole('button', { name, exact: true }).click()]);
      expect(await download.failure()).toBeNull();
      return { url: download.url(), suggested: download.suggestedFilename(), text: await readFile((await download.path())!, 'utf8') };
    };

    const heap = () => page.evaluate(() => (performance as unknown as { memory: { usedJSHeapSize: number } }).memory.usedJSHeapSize);
    const heapBefore = await heap();
    const ndjson = await downloadFile('Download NDJSON');
    const heapGrowth = (await heap()) - heapBefore;
    // The file is about 15 MB; a tab that fetched it would hold it at least once (twice as a string).
    expect(ndjson.text.length).toBeGreaterThan(10_000_000);
    expect(heapGrowth).toBeLessThan(ndjson.text.length / 10);
    // A navigation to the API's stream, not a blob the tab built; the link carries a signed token, never the API token.
    expect(ndjson.url).toMatch(new RegExp(`^${serve.origin}/api/factory/sites/big/urls\\?format=ndjson&download=1&downloadToken=\\d+\\.`));
    expect(ndjson.url).not.toContain(TOKEN);
    expect(ndjson.suggested).toBe('big-urls.ndjson');
    const lines = ndjson.text.split('\n').filter(Boolean);
    expect(lines).toHaveLength(50_000);
    expect(new Set(lines.map((line) => (JSON.parse(line) as { url: string }).url)).size).toBe(50_000);

    const csv = await downloadFile('Download CSV');
    const csvLines = csv.text.trimEnd().split('\r\n');
    expect(csvLines[0]).toBe('url,lastmod,changefreq,priority,locale,source,pathPrefix,firstSeenAt,lastSeenAt,changedAt,removedAt');
    expect(csvLines).toHaveLength(50_001);
    expect(csvLines[1]).toMatch(/^https:\/\/big\.example\/blog\/p-00000,,,,,https:\/\/big\.example\/sitemap\.xml,\/blog\/,/);
    expect(fetches).toEqual([]);

    // The link opens only its own site's export, and nothing opens without it.
    const token = new URL(csv.url).searchParams.get('downloadToken');
    expect((await fetch(`${serve.origin}/api/factory/sites/big/urls?format=csv&download=1`)).status).toBe(401);
    expect((await fetch(`${serve.origin}/api/factory/sites/e2e/urls?format=csv&download=1&downloadToken=${token}`)).status).toBe(401);
    expect((await fetch(`${serve.origin}/api/factory/sites/big/syncs?downloadToken=${token}`)).status).toBe(401);

    // A refused download shows next to the download buttons, not in the banner; the next good one clears it.
    const downloadError = page.locator('#download-error');
    const near = async (error: string, control: string) => {
      const [box, target] = await Promise.all([page.locator(error).boundingBox(), page.getByRole('button', { name: control, exact: true }).boundingBox()]);
      return box !== null && target !== null && Math.abs(box.y - (target.y + target.height)) < 60;
    };
    await page.getByLabel('Path group', { exact: true }).fill('blog');
    await page.getByRole('button', { name: 'Download CSV', exact: true }).click();
    await expect.poll(() => downloadError.textContent(), { timeout: 15_000 }).toContain('Download failed: prefix');
    expect(await near('#download-error', 'Download CSV')).toBe(true);
    expect(await page.getByRole('alert').count()).toBe(0);
    await page.getByLabel('Path group', { exact: true }).fill('/blog/');
    const blog = await downloadFile('Download CSV');
    expect(blog.text.trimEnd().split('\n')).toHaveLength(25_001);
    expect(await downloadError.isHidden()).toBe(true);

    // A start refused (a sync started elsewhere runs): next to the Sync button; a later good start clears it.
    site.delayMs = 1_000;
    const running = await api<{ syncId: string; state: string }>('/api/factory/sites/e2e/sync', { budgetMs: 50 });
    expect(running.state).toBe('running');
    await openSite('e2e');
    await expect.poll(() => page.getByRole('status').textContent(), { timeout: 15_000 }).toContain(': running ');
    await api('/api/factory/sites/e2e/sync/stop', {});
    // This page still advances the sync it found; its stop shows, then a start from here is refused by another's.
    await expect.poll(() => page.getByRole('status').textContent(), { timeout: 60_000 }).toMatch(/: stopped /);
    await api('/api/factory/sites/e2e/sync', { budgetMs: 50 });
    const syncError = page.locator('#sync-error');
    await page.getByRole('button', { name: 'Sync Sitemap', exact: true }).click();
    await expect.poll(() => syncError.textContent(), { timeout: 15_000 }).toContain('Sync failed to start: site e2e has a running sync');
    expect(await near('#sync-error', 'Sync Sitemap')).toBe(true);
    expect(await page.getByRole('alert').count()).toBe(0);
    await api('/api/factory/sites/e2e/sync/stop', {});
    site.delayMs = 0;
    await page.getByRole('button', { name: 'Sync Sitemap', exact: true }).click();
    await expect.poll(() => syncError.textContent(), { timeout: 30_000 }).toBe('');
    expect(await syncError.isHidden()).toBe(true);
    await expect.poll(() => page.getByRole('status').textContent(), { timeout: 180_000, interval: 500 }).toMatch(/: done /);

    // Adding a site whose id is taken: next to Add site; a free id adds it and clears the error.
    await page.getByLabel('Root URL', { exact: true }).fill(site.rootUrl);
    await page.getByLabel('Site id (optional)').fill('big');
    await page.getByRole('button', { name: 'Estimate', exact: true }).click();
    await expect.poll(() => page.locator('#estimate-figures').textContent(), { timeout: 60_000 }).toContain('Sub-sitemaps');
    await page.getByRole('button', { name: 'Add site' }).click();
    const addError = page.locator('#add-error');
    await expect.poll(() => addError.textContent(), { timeout: 15_000 }).toContain('Adding the site failed:');
    expect(await near('#add-error', 'Add site')).toBe(true);
    expect(await page.getByRole('alert').count()).toBe(0);
    await page.getByLabel('Site id (optional)').fill('big-two');
    // A sub-tree typed with a typo keeps none of what the estimate read: said before it is saved, nothing created.
    await page.getByLabel('A sub-tree').check();
    await page.getByLabel('Path groups (comma-separated, e.g. /blog/, /docs/)').fill('/dcos/');
    await page.getByRole('button', { name: 'Add site' }).click();
    await expect.poll(() => addError.textContent(), { timeout: 15_000 }).toContain('/dcos/ keeps none of the');
    expect((await api<{ sites: unknown[] }>('/api/factory/sites?q=big-two')).sites).toEqual([]);
    // Picked from the groups the estimate found instead: saved with that sub-tree.
    await page.getByLabel('Path groups (comma-separated, e.g. /blog/, /docs/)').fill('');
    const found = page.getByRole('group', { name: 'Path groups found' }).getByRole('checkbox');
    const picked = await found.first().inputValue();
    expect(['/blog/', '/docs/', '/shop/']).toContain(picked);
    await found.first().check();
    expect(await page.getByLabel('Path groups (comma-separated, e.g. /blog/, /docs/)').inputValue()).toBe(picked);
    await page.getByRole('button', { name: 'Add site' }).click();
    await expect.poll(() => page.locator('#site-title').textContent(), { timeout: 30_000 }).toBe('Site big-two');
    expect(await addError.isHidden()).toBe(true);
    expect((await api<{ options: unknown }>('/api/factory/sites/big-two')).options).toMatchObject({ filter: { pathPrefixes: [picked] } });
    await page.screenshot({ path: '.tmp/console-e2e-errors.png', fullPage: true });
  });
});
