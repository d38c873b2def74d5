import { describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../migrate.js';
import { openInventoryDb } from '../open-db.js';
import { applyMigrationsBefore, TEST_DATABASE_URL, useTestSchema } from './inventory-fixtures.js';

describe('inventory migrations on postgres', () => {
  const { schema } = useTestSchema('inv_mig', { create: false });

  it('applies each migration once when three sessions (as three processes would) start at the same moment', async () => {
    const dbs = await Promise.all([0, 1, 2].map(() => openInventoryDb({ databaseUrl: TEST_DATABASE_URL, schema })));
    const rows = await dbs[0]!.query('SELECT version, name FROM schema_migrations ORDER BY version');
    expect(rows).toEqual(MIGRATIONS.map(({ version, name }) => ({ version, name })));
    await Promise.all(dbs.map((db) => db.close()));
    const again = await openInventoryDb({ databaseUrl: TEST_DATABASE_URL, schema });
    expect(await again.query('SELECT count(*)::int AS n FROM schema_migrations')).toEqual([{ n: MIGRATIONS.length }]);
    await again.close();
  });
});

describe('migration 3 on an inventory written before it (postgres)', () => {
  const test = useTestSchema('inv_mig3');
  const { schema, admin } = test;

  it('gives each live URL a membership in the sitemap it was recorded under, and leaves removed ones without', async () => {
    await applyMigrationsBefore(test, 3);
    await admin.query(`INSERT INTO sites (site_id, root_url) VALUES ('old', 'https://o.example/')`);
    await admin.query(`INSERT INTO syncs (sync_id, site_id, job_id, state) VALUES ('s1', 'old', 'j1', 'done')`);
    const row = (url: string, source: string, removed: boolean) =>
      admin.query(
        `INSERT INTO urls (site_id, url, source_sitemap, first_seen_at, last_seen_at, sitemap_synced_at, changed_at, removed_at, last_sync_id)
         VALUES ('old', $1, $2, now(), now(), now(), now(), ${removed ? 'now()' : 'NULL'}, 's1')`,
        [url, source],
      );
    await row('https://o.example/a', 'https://o.example/sm-1.xml', false);
    await row('https://o.example/b', 'https://o.example/sm-2.xml', false);
    await row('https://o.example/c', 'https://o.example/sm-2.xml', true);

    const db = await openInventoryDb({ databaseUrl: TEST_DATABASE_URL, schema });
    const members = await db.query(
      `SELECT m.url, s.url AS sitemap, m.seen_seq::int AS seq FROM url_sitemaps m JOIN sitemaps s USING (sitemap_id) ORDER BY m.url`,
    );
    expect(members).toEqual([
      { url: 'https://o.example/a', sitemap: 'https://o.example/sm-1.xml', seq: 0 },
      { url: 'https://o.example/b', sitemap: 'https://o.example/sm-2.xml', seq: 0 },
    ]);
    expect(await db.query(`SELECT kept_unread_count::int AS n, failed_sitemaps AS f FROM syncs`)).toEqual([{ n: 0, f: [] }]);
    await db.close();
  });
});
