import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openInventoryDb } from '../open-db.js';
import { TEST_DATABASE_URL } from './inventory-fixtures.js';

describe('inventory migrations on postgres', () => {
  const schema = `inv_mig_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  afterAll(async () => {
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await client.end();
  });

  it('applies each migration once when three sessions (as three processes would) start at the same moment', async () => {
    const dbs = await Promise.all([0, 1, 2].map(() => openInventoryDb({ databaseUrl: TEST_DATABASE_URL, schema })));
    const rows = await dbs[0]!.query('SELECT version, name FROM schema_migrations ORDER BY version');
    expect(rows).toEqual([
      { version: 1, name: 'init' },
      { version: 2, name: 'sitemap-validators' },
      { version: 3, name: 'sitemap-membership' },
    ]);
    await Promise.all(dbs.map((db) => db.close()));
    const again = await openInventoryDb({ databaseUrl: TEST_DATABASE_URL, schema });
    expect(await again.query('SELECT count(*)::int AS n FROM schema_migrations')).toEqual([{ n: 3 }]);
    await again.close();
  });
});
