// The site list on both databases: 2,000 sites (many sharing one created_at, so the keyset's tie-break on the id
// matters) paged 50 at a time equal the unpaged list, a search matches id or root URL in any case, and a cursor
// still continues after its site was deleted; each site carries its newest sync; an unknown parameter is refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isFactoryError } from '../../core/errors.js';
import { listSitePage, SiteListQuerySchema, type SiteListQuery } from '../site-list.js';
import { getSync } from '../syncs.js';
import { DATABASES, PGLITE_START_MS, useTestDb } from './inventory-fixtures.js';

const SITES = 2_000;
const PAGE = 50;

describe.each(DATABASES)('site list on $name', ({ open }) => {
  const test = useTestDb(open);

  beforeAll(async () => {
    // Sites 0-999 share one created_at; the rest are a microsecond apart (a Date would round them together).
    await test.db.query(
      `INSERT INTO sites (site_id, root_url, created_at)
       SELECT 'site-' || lpad(n::text, 4, '0'), 'https://' || CASE WHEN n % 100 = 7 THEN 'Shop' ELSE 'www' END || n || '.example/',
              timestamptz '2026-01-01T00:00:00Z' + CASE WHEN n < 1000 THEN interval '0' ELSE (n - 1000) * interval '1 microsecond' END
       FROM generate_series(1999, 0, -1) n`,
    );
  }, PGLITE_START_MS);
  afterAll(async () => {});

  const query = (raw: Record<string, string>): SiteListQuery => SiteListQuerySchema.parse(raw);

  async function everyPage(raw: Record<string, string>): Promise<{ ids: string[]; pages: number }> {
    const ids: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await listSitePage(test.db, query({ ...raw, limit: String(PAGE), ...(cursor ? { cursor } : {}) }));
      expect(page.sites.length).toBeLessThanOrEqual(PAGE);
      ids.push(...page.sites.map((site) => site.siteId));
      cursor = page.nextCursor;
      pages += 1;
    } while (cursor !== null);
    return { ids, pages };
  }

  it('pages 50 at a time through exactly the unpaged list, in (created_at, site id) order', async () => {
    const all = await listSitePage(test.db);
    expect(all.nextCursor).toBeNull();
    expect(all.sites).toHaveLength(SITES);
    expect(all.sites.slice(0, 2).map((site) => site.siteId)).toEqual(['site-0000', 'site-0001']);
    expect(all.sites[0]).toMatchObject({ rootUrl: 'https://www0.example/', urlCount: 0, lastSync: null });
    const paged = await everyPage({});
    expect(paged.pages).toBe(SITES / PAGE);
    expect(paged.ids).toEqual(all.sites.map((site) => site.siteId));
  });

  it('searches the id and the root URL, in any case, and pages the matches', async () => {
    const shops = await everyPage({ q: '  shop ' });
    expect(shops.ids).toHaveLength(SITES / 100);
    expect(shops.ids.every((id) => Number(id.slice(5)) % 100 === 7)).toBe(true);
    expect((await listSitePage(test.db, query({ q: 'SITE-012' }))).sites.map((site) => site.siteId)).toEqual(
      Array.from({ length: 10 }, (_, i) => `site-012${i}`),
    );
    expect((await listSitePage(test.db, query({ q: '%' }))).sites).toEqual([]);
    expect((await listSitePage(test.db, query({ q: '' }))).sites).toHaveLength(SITES);
  });

  it('continues after a cursor whose site was deleted meanwhile', async () => {
    const first = await listSitePage(test.db, query({ limit: '3' }));
    const last = first.sites.at(-1)!.siteId;
    await test.db.query('DELETE FROM sites WHERE site_id = $1', [last]);
    const next = await listSitePage(test.db, query({ limit: '3', cursor: first.nextCursor! }));
    expect(next.sites.map((site) => site.siteId)).toEqual(['site-0003', 'site-0004', 'site-0005']);
  });

  it('refuses a forged cursor (400 bad_request) and a limit out of range', async () => {
    const forged = Buffer.from(JSON.stringify(['2026-01-01', 'x'])).toString('base64url');
    for (const cursor of ['nope', forged]) {
      const error = await listSitePage(test.db, query({ cursor })).catch((caught: unknown) => caught);
      expect(isFactoryError(error) && error.kind === 'bad_request', String(error)).toBe(true);
    }
    for (const limit of ['0', '1001', '-1', 'ten']) expect(SiteListQuerySchema.safeParse({ limit }).success, limit).toBe(false);
    // A misspelt parameter must not quietly list every site.
    const unknown = SiteListQuerySchema.safeParse({ limti: '10' });
    expect(unknown.success).toBe(false);
    expect(unknown.error?.issues[0]).toMatchObject({ code: 'unrecognized_keys', keys: ['limti'] });
  });

  it("gives each site its newest sync as the syncs' reader reads it, and none to a site never synced", async () => {
    await test.db.query(
      `INSERT INTO syncs (sync_id, site_id, job_id, state, started_at, finished_at) VALUES
         ('AAAAAAAAAAAAAAAAAAAAAA', 'site-0010', 'job-a', 'done', timestamptz '2026-01-02T00:00:00Z', timestamptz '2026-01-02T00:01:00Z'),
         ('BBBBBBBBBBBBBBBBBBBBBB', 'site-0010', 'job-b', 'running', timestamptz '2026-01-03T00:00:00Z', NULL),
         ('CCCCCCCCCCCCCCCCCCCCCC', 'site-0011', 'job-c', 'failed', timestamptz '2026-01-02T00:00:00Z', timestamptz '2026-01-02T00:00:09Z')`,
    );
    // Counters are the parts' (migration 6): the running sync has applied one part of 12 URLs so far.
    await test.db.query(
      `INSERT INTO sync_parts (sync_id, shard, part, parts, rows, seen, new) VALUES
         ('AAAAAAAAAAAAAAAAAAAAAA', 0, 0, 1, 40, 40, 40), ('BBBBBBBBBBBBBBBBBBBBBB', 0, 0, 1, 12, 12, 12)`,
    );
    const { sites } = await listSitePage(test.db, query({ q: 'site-001', limit: '3' }));
    expect(sites.map((site) => [site.siteId, site.lastSync?.syncId ?? null, site.lastSync?.state ?? null])).toEqual([
      ['site-0010', 'BBBBBBBBBBBBBBBBBBBBBB', 'running'],
      ['site-0011', 'CCCCCCCCCCCCCCCCCCCCCC', 'failed'],
      ['site-0012', null, null],
    ]);
    expect(sites[0]?.lastSync).toEqual(await getSync(test.db, 'BBBBBBBBBBBBBBBBBBBBBB'));
    expect(sites[0]?.lastSync).toMatchObject({ seen: 12, new: 12, shardsApplied: 1 });
  });
});
