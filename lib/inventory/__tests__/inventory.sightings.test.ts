import { describe, expect, it } from 'vitest';
import { applyShard } from '../apply-shard.js';
import { removeWhatIsGone } from '../removal.js';
import { createSite } from '../sites.js';
import { finishSync, getSync, insertSync } from '../syncs.js';
import { newJobId } from '../../store/job-id.js';
import type { ShardEntry } from '../../core/types.js';
import { DATABASES, historyFacts, urlFacts, useTestDb } from './inventory-fixtures.js';

const ORIGIN = 'https://seen.example';
const A = `${ORIGIN}/a.xml`;
const B = `${ORIGIN}/b.xml`;

const entry = (path: string, source: string, lastmod = '2026-01-01'): ShardEntry => ({
  url: `${ORIGIN}${path}`,
  lastmod,
  changefreq: null,
  priority: null,
  source,
  locale: null,
});

// `count` pages of one sitemap, /<name>/<i>; `changed` of them (the first ones) with a new lastmod.
const pages = (name: string, source: string, count: number, changed = 0): ShardEntry[] =>
  Array.from({ length: count }, (_, i) => entry(`/${name}/${i}`, source, i < changed ? '2026-02-01' : '2026-01-01'));

describe.each(DATABASES)('sightings recorded per part on $name', ({ open }) => {
  const test = useTestDb(open);

  /** One sync of `siteId` applying `shards` in order, then its removal step (every sitemap read whole) and `done`. */
  async function syncShards(siteId: string, shards: ShardEntry[][], beforeRemoval?: (syncId: string) => Promise<void>) {
    const sync = await insertSync(test.db, { syncId: newJobId(), siteId, jobId: newJobId() });
    for (const [shard, entries] of shards.entries()) await applyShard(test.db, { syncId: sync.syncId, siteId, shard, entries });
    await beforeRemoval?.(sync.syncId);
    await removeWhatIsGone(test.db, sync, { errors: [], errorsComplete: true, unchanged: [] });
    await finishSync(test.db, sync.syncId, 'done');
    return getSync(test.db, sync.syncId);
  }

  const versions = async (table: 'urls' | 'url_sitemaps', siteId: string) =>
    new Map((await test.db.query(`SELECT url, xmin::text AS v FROM ${table} WHERE site_id = $1`, [siteId])).map((row) => [String(row.url), String(row.v)]));
  const rewritten = (before: Map<string, string>, after: Map<string, string>) => [...after].filter(([url, v]) => before.get(url) !== v).map(([url]) => url);

  it('writes neither a URL row nor a membership for an unchanged URL, removes only what its read sitemap dropped, and leaves no working rows', async () => {
    await createSite(test.db, { rootUrl: `${ORIGIN}/`, siteId: 'unchanged' });
    expect(await syncShards('unchanged', [pages('a', A, 1_000), pages('b', B, 1_000)])).toMatchObject({ new: 2_000, removed: 0 });
    const urlsBefore = await versions('urls', 'unchanged');
    const membersBefore = await versions('url_sitemaps', 'unchanged');

    const resync = await syncShards('unchanged', [pages('a', A, 999), pages('b', B, 1_000, 10)]);
    expect(resync).toMatchObject({ seen: 1_999, new: 0, changed: 10, removed: 1 });
    const changed = pages('b', B, 10).map((page) => page.url);
    const dropped = `${ORIGIN}/a/999`;
    expect(rewritten(urlsBefore, await versions('urls', 'unchanged')).sort()).toEqual([...changed, dropped].sort());
    expect(rewritten(membersBefore, await versions('url_sitemaps', 'unchanged'))).toEqual([]);
    expect((await versions('url_sitemaps', 'unchanged')).has(dropped)).toBe(false);
    const history = (await historyFacts(test.db, 'unchanged')).filter((row) => row.syncId === resync.syncId);
    expect(history.map((row) => [row.url, row.event]).sort()).toEqual([...changed.map((url) => [url, 'lastmod']), [dropped, 'removed']].sort());
    // A second worker's removal step that comes after the end (its sightings gone) queues and removes nothing.
    await removeWhatIsGone(test.db, resync, { errors: [], errorsComplete: true, unchanged: [] });
    expect((await urlFacts(test.db, 'unchanged')).filter((row) => row.removed).map((row) => row.url)).toEqual([dropped]);
    expect(await test.db.query('SELECT (SELECT count(*) FROM part_sightings)::int AS sightings, (SELECT count(*) FROM sync_drops)::int AS drops')).toEqual([
      { sightings: 0, drops: 0 },
    ]);
  });

  it('gives a URL a second sitemap newly lists the newest lastmod of the two, whichever part comes first, and counts it once', async () => {
    await createSite(test.db, { rootUrl: `${ORIGIN}/`, siteId: 'second' });
    // u and v are listed by A alone; this sync B lists them too, with a newer lastmod: u's A part comes first, v's B part.
    expect(await syncShards('second', [[entry('/u', A), entry('/v', A)]])).toMatchObject({ new: 2 });
    const both = await syncShards('second', [
      [entry('/u', A), entry('/v', B, '2026-02-01')],
      [entry('/u', B, '2026-02-01'), entry('/v', A)],
    ]);
    expect(both).toMatchObject({ seen: 2, new: 0, changed: 2, removed: 0 });
    expect((await urlFacts(test.db, 'second')).map((row) => [row.url, row.lastmod, row.removed])).toEqual([
      [`${ORIGIN}/u`, '2026-02-01', false],
      [`${ORIGIN}/v`, '2026-02-01', false],
    ]);
    expect((await historyFacts(test.db, 'second')).map((row) => [row.url, row.event, row.oldValue, row.newValue])).toEqual([
      [`${ORIGIN}/u`, 'lastmod', '2026-01-01', '2026-02-01'],
      [`${ORIGIN}/v`, 'lastmod', '2026-01-01', '2026-02-01'],
    ]);

    // Both listed by two sitemaps now: B drops them (read whole), A keeps them: nothing is removed, nothing counted twice;
    // u's newest listing is A's older lastmod now, a real move.
    expect(await syncShards('second', [[entry('/u', A)], [entry('/v', A, '2026-02-01')]])).toMatchObject({ seen: 2, changed: 1, removed: 0 });
    const members = await test.db.query(
      `SELECT m.url, s.url AS sitemap FROM url_sitemaps m JOIN sitemaps s USING (sitemap_id) WHERE m.site_id = 'second' ORDER BY m.url`,
    );
    expect(members).toEqual([
      { url: `${ORIGIN}/u`, sitemap: A },
      { url: `${ORIGIN}/v`, sitemap: A },
    ]);
    // Then A drops u: gone.
    expect(await syncShards('second', [[entry('/v', A, '2026-02-01')]])).toMatchObject({ seen: 1, removed: 1 });
    expect((await urlFacts(test.db, 'second')).filter((row) => row.removed).map((row) => row.url)).toEqual([`${ORIGIN}/u`]);
  });

  it('removes nothing a sync running across the upgrade saw: memberships stamped by parts applied before migration 8 count as sightings', async () => {
    await createSite(test.db, { rootUrl: `${ORIGIN}/`, siteId: 'upgrade' });
    await syncShards('upgrade', [pages('a', A, 600)]);
    // The membership rows the code before migration 9 wrote for every URL.
    await test.db.query(
      `INSERT INTO url_sitemaps (site_id, url, sitemap_id, seen_seq)
       SELECT u.site_id, u.url, s.sitemap_id, 0 FROM urls u JOIN sitemaps s ON s.site_id = u.site_id AND s.url = u.source_sitemap WHERE u.site_id = 'upgrade'`,
    );
    // Parts applied by the code before migration 8: every membership they saw stamped, no sighting rows.
    const resync = await syncShards('upgrade', [pages('a', A, 600)], async (syncId) => {
      await test.db.query('DELETE FROM part_sightings WHERE sync_id = $1', [syncId]);
      await test.db.query(`UPDATE url_sitemaps SET seen_seq = (SELECT seq FROM syncs WHERE sync_id = $1) WHERE site_id = 'upgrade' AND url <> $2`, [
        syncId,
        `${ORIGIN}/a/7`,
      ]);
    });
    expect(resync).toMatchObject({ seen: 600, removed: 1 });
    expect((await urlFacts(test.db, 'upgrade')).filter((row) => row.removed).map((row) => row.url)).toEqual([`${ORIGIN}/a/7`]);
  });
});
