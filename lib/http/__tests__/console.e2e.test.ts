// The ops console in headless Chromium (Debian's /usr/bin/chromium driven by playwright-core) against the built
// `crawler-factory serve` (dist/cli/bin.js, run from another working directory, as an installed package runs) and a
// loopback site: add a site, estimate, sync to done, stop a second sync, browse by prefix.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../test/helpers/redis-server.js';
import { TEST_DATABASE_URL, startMutableSite, type MutableSite } from '../../inventory/__tests__/inventory-fixtures.js';
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
];

interface SyncBody {
  syncId: string;
  state: string;
  seen: number;
  removed: number;
}

describe('ops console in Chromium', () => {
  const schema = `inv_e2e_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  let site: MutableSite;
  let serve: ServeProcess;
  let context: BrowserContext;
  let page: Page;
  let profile: string;
  let elsewhere: string;
  const api = async <T>(path: string): Promise<T> =>
    (await (await fetch(`${serve.origin}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as T;

  beforeAll(async () => {
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    site = await startMutableSite(3_000, 100);
    elsewhere = await mkdtemp(join(tmpdir(), 'console-e2e-cwd-'));
    serve = await startServe({
      port: await freePort(),
      bin: BUILT_BIN,
      cwd: elsewhere,
      env: {
        DATABASE_URL: `${TEST_DATABASE_URL}?options=${encodeURIComponent(`-c search_path=${schema}`)}`,
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
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
  });

  it('adds a site after its estimate, syncs it to done, stops a second sync and browses by prefix', { timeout: 300_000 }, async () => {
    await page.goto(`${serve.origin}/`);
    await page.getByLabel('API token').fill(TOKEN);
    await page.getByRole('button', { name: 'Use token' }).click();
    const health = page.getByRole('region', { name: 'Service health' });
    await expect.poll(() => health.textContent(), { timeout: 15_000 }).toBe('Service ok · store memory ok · database postgres ok · 0 running syncs · 0 sites');

    await page.getByLabel('Root URL', { exact: true }).fill(site.rootUrl);
    await page.getByLabel('Site id (optional)').fill('e2e');
    await page.getByRole('button', { name: 'Estimate', exact: true }).click();
    await expect.poll(() => page.locator('#estimate-figures').textContent(), { timeout: 60_000 }).toContain('Sub-sitemaps');
    expect(await page.locator('#estimate-figures').textContent()).toContain('30');
    await page.getByRole('button', { name: 'Add site' }).click();
    await expect.poll(() => page.locator('#site-title').textContent(), { timeout: 30_000 }).toBe('Site e2e');

    const status = page.getByRole('status');
    await page.getByRole('button', { name: 'Sync Sitemap', exact: true }).click();
    await expect.poll(() => status.textContent(), { timeout: 180_000, interval: 500 }).toMatch(/: done /);
    const { syncs } = await api<{ syncs: SyncBody[] }>('/api/factory/sites/e2e/syncs');
    expect(syncs[0]).toMatchObject({ state: 'done', seen: 3_000 });
    expect(await status.textContent()).toContain(`${syncs[0]!.syncId}: done — ${syncs[0]!.seen} URLs`);
    const { sites } = await api<{ sites: Array<{ siteId: string; urlCount: number }> }>('/api/factory/sites');
    const row = page.locator('#sites-table tbody tr', { hasText: 'e2e' });
    await expect.poll(() => row.locator('td').nth(2).textContent()).toBe(String(sites.find((s) => s.siteId === 'e2e')?.urlCount));
    await expect.poll(() => health.textContent(), { timeout: 20_000 }).toMatch(/ · 1 site$/);

    // A slow site keeps the second sync running long enough to stop it from the page.
    site.delayMs = 1_500;
    await page.getByRole('button', { name: 'Sync Sitemap', exact: true }).click();
    await expect.poll(() => status.textContent(), { timeout: 60_000, interval: 200 }).toMatch(/: running /);
    await page.getByRole('button', { name: 'Stop', exact: true }).click();
    await expect.poll(() => status.textContent(), { timeout: 60_000 }).toMatch(/: stopped /);
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
    site.failing.clear();

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
    const previous = page.getByRole('button', { name: 'Previous sites' });
    expect(await previous.isDisabled()).toBe(true);

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
});
