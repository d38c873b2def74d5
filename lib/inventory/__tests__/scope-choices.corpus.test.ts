// Over the real-world corpus (skipped when ../shared/corpus is absent): every locale the estimate offers and every path
// group `groups` offers, synced as the site's sub-tree, keeps exactly what a walk with that filter keeps, removes nothing
// (the rest leaves the scope, and comes back when the filter goes), and an unchanged re-sync reports no change.
import { afterAll, describe, expect, it } from 'vitest';
import { loadCorpusSites, serveCorpusSite, type CorpusSite } from '../../../test/helpers/corpus-server.js';
import { closeAgents } from '../../factory/fetch/index.js';
import { estimateScope } from '../../factory/scope/scope-estimator.js';
import { groupByPathPrefix } from '../../factory/scope/path-grouper.js';
import { walkShardEntries } from '../../factory/sitemap.js';
import type { FilterOptionsInput } from '../../core/filter-options.js';
import { MemoryJobStore } from '../../store/memory-job-store.js';
import { createSite, updateSite } from '../sites.js';
import { startSync } from '../sync-driver.js';
import type { Sync } from '../schemas.js';
import { LOOPBACK_NET, openPostgresTestDb, syncToEnd, useTestDb } from './inventory-fixtures.js';

const sites = (await loadCorpusSites()) ?? [];
// The largest groups of a site are its real choices; the long tail of one-page folders adds time, not cases.
const GROUPS_PER_SITE = 4;

async function distinctUrls(rootUrl: string, filter: FilterOptionsInput = {}): Promise<Set<string>> {
  const urls = new Set<string>();
  for await (const batch of walkShardEntries(rootUrl, { net: LOOPBACK_NET, filter })) for (const entry of batch) urls.add(entry.url);
  return urls;
}

async function offeredGroups(rootUrl: string): Promise<string[]> {
  const prefixes: string[] = [];
  for await (const group of groupByPathPrefix(walkShardEntries(rootUrl, { net: LOOPBACK_NET }))) {
    if (group.prefix !== 'other') prefixes.push(group.prefix.replace(/\*$/, ''));
  }
  return prefixes.slice(0, GROUPS_PER_SITE);
}

describe.skipIf(sites.length === 0)('scope choices over the corpus', () => {
  const test = useTestDb(openPostgresTestDb);
  const store = new MemoryJobStore();
  const runtime = () => ({ db: test.db, store, net: LOOPBACK_NET });
  const sync = async (siteId: string, full = true): Promise<Sync> => syncToEnd(runtime(), (await startSync(runtime(), siteId, { full })).syncId);
  const liveUrls = async (siteId: string) =>
    new Set((await test.db.query('SELECT url FROM urls WHERE site_id = $1 AND removed_at IS NULL', [siteId])).map((row) => String(row.url)));

  afterAll(async () => {
    await closeAgents();
  });

  const withRoots = sites.filter((site): site is CorpusSite & { origin: string } => site.origin !== null && site.roots.length > 0);
  it.each(withRoots.map((site) => [site.id, site] as const))('%s', { timeout: 300_000 }, async (_id, site) => {
    const server = await serveCorpusSite(site);
    try {
      const rootUrl = `${server.origin}/${site.roots[0]}`;
      const siteId = site.id.toLowerCase().replace(/[^a-z0-9._-]/g, '-');
      await createSite(test.db, { siteId, rootUrl });
      const whole = await sync(siteId);
      const all = await liveUrls(siteId);
      // HTML served as a sitemap, children that never resolve, relative locs: nothing kept, no choice to offer.
      if (all.size === 0) return void expect(['done', 'failed']).toContain(whole.state);
      expect(whole.state).toBe('done');

      // Unchanged, read whole or incrementally: nothing new, changed or removed.
      for (const full of [true, false]) expect(await sync(siteId, full)).toMatchObject({ state: 'done', new: 0, changed: 0, removed: 0, returned: 0 });

      const estimate = await estimateScope(rootUrl, { net: LOOPBACK_NET, budgetMs: 10_000 });
      const choices: Array<{ what: string; filter: { pathPrefixes: string[]; locales: string[] } }> = [
        ...estimate.languagesDetected.map((locale) => ({ what: `locale ${locale}`, filter: { pathPrefixes: [], locales: [locale] } })),
        ...(await offeredGroups(rootUrl)).map((group) => ({ what: `group ${group}`, filter: { pathPrefixes: [group], locales: [] } })),
      ];
      for (const choice of choices) {
        const expected = await distinctUrls(rootUrl, choice.filter);
        expect(expected.size, `${choice.what} is offered, so it keeps something`).toBeGreaterThan(0);
        await updateSite(test.db, siteId, { options: { filter: choice.filter } }, LOOPBACK_NET);
        const narrowed = await sync(siteId);
        expect(narrowed, choice.what).toMatchObject({ state: 'done', removed: 0, new: 0 });
        expect([...(await liveUrls(siteId))].sort(), choice.what).toEqual([...expected].sort());
        await updateSite(test.db, siteId, { options: { filter: { pathPrefixes: [], locales: [] } } }, LOOPBACK_NET);
        const widened = await sync(siteId);
        expect(widened, choice.what).toMatchObject({ state: 'done', removed: 0, new: 0, enteredScope: narrowed.leftScope });
        expect((await liveUrls(siteId)).size, choice.what).toBe(all.size);
      }
    } finally {
      await server.close();
    }
  });
});
