// Database faults have kinds: an unreachable database is 503 `store_unavailable` with Retry-After (retry later), a
// malformed DATABASE_URL is 500 `config` naming the variable and never its value; the CLI says the same in words (exit 1).
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runMain } from '../../../test/helpers/run-cli.js';
import { expectError } from '../../../lib/service/__tests__/http-fixtures.js';
import { testDeployment } from '../../../lib/service/__tests__/test-deployment.js';
import { startLocalApiServer, type LocalApiServer } from '../../../lib/service/local-server.js';

const API_DIR = fileURLToPath(new URL('../../', import.meta.url));

// A port nothing listens on: bound once, then released.
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  const { port } = server.address() as { port: number };
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

describe('database faults', () => {
  let server: LocalApiServer;
  let unreachable: string;
  const deployment = testDeployment({});

  beforeAll(async () => {
    unreachable = `postgres://postgres:hunter2@127.0.0.1:${await closedPort()}/test`;
    server = await startLocalApiServer(API_DIR, { host: '127.0.0.1', port: 0 }, deployment.source);
  });
  afterEach(async () => deployment.configure(null));
  afterAll(async () => {
    await server?.close();
    await deployment.release();
  });

  it('answers 503 store_unavailable with Retry-After when the database is unreachable, on reads and writes', async () => {
    await deployment.configure({ DATABASE_URL: unreachable });
    for (const response of [
      await fetch(`${server.origin}/api/factory/sites`),
      await fetch(`${server.origin}/api/factory/sites`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ rootUrl: 'https://example.com/' }),
      }),
    ]) {
      expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
      const body = await expectError(response, 503, 'store_unavailable');
      expect(body.error.message).toContain('inventory database');
      expect(JSON.stringify(body)).not.toContain('hunter2');
    }
  });

  it('answers 500 config naming DATABASE_URL, never its value, when it is malformed', async () => {
    await deployment.configure({ DATABASE_URL: 'notaurl' });
    const body = await expectError(await fetch(`${server.origin}/api/factory/sites`), 500, 'config');
    expect(body.error.message).toContain('DATABASE_URL');
    expect(body.error.message).not.toContain('notaurl');
  });

  it('says the same from the CLI: sync exits 1 with the kind and the reason, a malformed URL is config (exit 2)', { timeout: 60_000 }, async () => {
    const down = await runMain(['sync', 'https://example.com/'], { env: { DATABASE_URL: unreachable } });
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/store_unavailable: the inventory database is unavailable: connect ECONNREFUSED/);
    expect(down.stderr).not.toContain('hunter2');
    const malformed = await runMain(['sync', 'https://example.com/'], { env: { DATABASE_URL: 'notaurl' } });
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toContain('config: DATABASE_URL: expected a postgres:// or postgresql:// URL');
    expect(malformed.stderr).not.toContain('notaurl');
    const serveMalformed = await runMain(['serve', '--port', '0'], { env: { DATABASE_URL: 'notaurl' } });
    expect(serveMalformed.code).toBe(2);
    expect(serveMalformed.stderr).toContain('config: DATABASE_URL');
    // serve with the database down starts and waits for it: lib/service/__tests__/serve.dependencies-down.test.ts.
    // A connection string the server or the driver refuses (no such database, no user) is the operator's to fix: config.
    for (const db of ['postgres://postgres@127.0.0.1:5432/no_such_database_cf', 'postgres://']) {
      const refused = await runMain(['sync', 'https://example.com/', '--db', db]);
      expect(refused.code, db).toBe(2);
      expect(refused.stderr, db).toMatch(
        /config: the inventory database refused the connection \(.+\): give a user, its password and an existing database in --db or DATABASE_URL/,
      );
    }
  });
});
