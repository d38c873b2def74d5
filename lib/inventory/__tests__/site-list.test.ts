// The site list on both databases: 2,000 sites (many sharing one created_at, so the keyset's tie-break on the id
// matters) paged 50 at a time equal the unpaged list, a search matches id or root URL in any case, and a cursor
// still continues after its site was deleted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isFactoryError } from '../../core/errors.js';
import { listSitePage, SiteListQuerySchema, type SiteListQuery } from '../site-list.js';
import { DATABASES, PGLITE_START_MS, type TestDb } from './inventory-fixtures.js';

const SITES = 2_000;
const PAGE = 50;

describe.each(DATABASES)('site list on $name', ({ open }) => {
  let test: TestDb;

  beforeAll(async () => {
    test = await open();
    // Sites 0-999 share one created_at; the rest are a microsecond apart (a Date would round them together).
    await test.db.query(
      `INSERT INTO sites (site_id, root_url, created_at)
       SELECT 'site-' || lpad(n::text, 4, '0'), 'https://' || CASE WHEN n % 100 = 7 THEN 'Shop' ELSE 'www' END || n || '.example/',
              timestamptz '2026-01-01T00:00:00Z' + CASE WHEN n < 1000 THEN interval '0' ELSE (n - 1000) * interval '1 microsecond' END
       FROM generate_series(1999, 0, -1) n`,
    );
  }, PGLITE_START_MS);
  afterAll(async () => {
    await test?.db.close();
    await test?.drop();
  });

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
  });
});
