// `crawler-factory worker` shares its work through Postgres and Redis: it refuses to start where it could not (PGlite,
// the in-memory job store, a bad flag), and an unreachable database is `store_unavailable`, as for sync and serve.
import { describe, expect, it } from 'vitest';
import { freePort } from '../../test/helpers/redis-server.js';
import { runMain } from '../../test/helpers/run-cli.js';
import { TEST_DATABASE_URL } from '../../lib/inventory/__tests__/inventory-fixtures.js';

const NO_STORE = { REDIS_URL: '', UPSTASH_REDIS_REST_URL: '', UPSTASH_REDIS_REST_TOKEN: '', KV_REST_API_URL: '', KV_REST_API_TOKEN: '' };

describe('crawler-factory worker', () => {
  it('refuses an embedded database: PGlite is one process, and serve drives its syncs itself', async () => {
    const run = await runMain(['worker', '--db', '.tmp/no-such-db'], { env: { ...NO_STORE, DATABASE_URL: '', REDIS_URL: 'redis://127.0.0.1:6379' } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('worker needs a Postgres inventory (DATABASE_URL or --db postgres://...)');
  });

  it('refuses the in-memory job store, which other workers cannot see', async () => {
    const run = await runMain(['worker'], { env: { ...NO_STORE, DATABASE_URL: TEST_DATABASE_URL } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('worker needs a shared job store (REDIS_URL');
  });

  it('refuses a concurrency out of range', async () => {
    const run = await runMain(['worker', '--concurrency', '0'], { env: { ...NO_STORE, DATABASE_URL: TEST_DATABASE_URL } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--concurrency takes a whole number in 1..256');
  });

  it('says store_unavailable and exits 1 when the database is unreachable', { timeout: 60_000 }, async () => {
    const unreachable = `postgres://app:hunter2@127.0.0.1:${await freePort()}/inventory`;
    const run = await runMain(['worker', '--db', unreachable], { env: { ...NO_STORE, DATABASE_URL: '', REDIS_URL: 'redis://127.0.0.1:6379' } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('store_unavailable: the inventory database is unavailable');
    expect(run.stderr).not.toContain('hunter2');
  });
});
