// `--db postgres://...` on serve and sync is a connection string (as DATABASE_URL), never a folder named `postgres:`.
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoSite, type DemoSite } from '../../lib/demo/demo-site.js';
import { useTestSchema } from '../../lib/inventory/__tests__/inventory-fixtures.js';
import { runCliIn, startCli } from './cli-process.js';

describe('--db postgres://...', () => {
  const { schema, databaseUrl: url, admin } = useTestSchema('cli_dbflag');
  // Neither variable: the flag alone must name the database.
  const env = { DATABASE_URL: '', REDIS_URL: '', FACTORY_API_TOKEN: '' };
  let demo: DemoSite;
  let cwd: string;

  beforeAll(async () => {
    demo = await startDemoSite();
    cwd = await mkdtemp(join(tmpdir(), 'cli-db-flag-'));
  });
  afterAll(async () => {
    await demo?.close();
    await rm(cwd, { recursive: true, force: true });
  });

  it('sync writes into Postgres, and serve and sites read the same inventory from it', { timeout: 120_000 }, async () => {
    const sync = await runCliIn(['sync', demo.rootUrl, '--site', 'demo', '--allow-private', '--db', url, '--timeout', '9000'], { env, cwd });
    expect(sync.code, sync.stderr).toBe(0);
    expect(sync.stderr).toContain('into Postgres (postgres://');
    const rows = await admin.query(`SELECT count(*)::int AS n FROM ${schema}.urls WHERE site_id = 'demo'`);
    expect(rows.rows[0]).toEqual({ n: demo.expectation.all.pageUrls });
    // The fetch flags of a sync that adds its site become the site's options, never dropped silently.
    const stored = await admin.query(`SELECT options FROM ${schema}.sites WHERE site_id = 'demo'`);
    expect(stored.rows[0]).toEqual({ options: { timeoutMs: 9000 } });
    // Flags no site keeps, or options for a site that has its own, are refused before anything starts.
    const header = await runCliIn(['sync', demo.rootUrl, '--site', 'other', '--allow-private', '--db', url, '-H', 'X-A: 1'], { env, cwd });
    expect(header.code).toBe(2);
    expect(header.stderr).toContain('--header: not kept with a site');
    const again = await runCliIn(['sync', demo.rootUrl, '--site', 'demo', '--allow-private', '--db', url, '--max-urls', '5'], { env, cwd });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('--max-urls: site demo exists with its own options; change them with: crawler-factory sites set demo');
    const siteIds = await admin.query(`SELECT site_id FROM ${schema}.sites ORDER BY site_id`);
    expect(siteIds.rows).toEqual([{ site_id: 'demo' }]);

    const serve = startCli(['serve', '--port', '0', '--db', url], { env, cwd });
    try {
      const [, origin] = (await serve.waitForStderr(/on (http:\/\/127\.0\.0\.1:\d+)/)) as RegExpMatchArray;
      expect(serve.stderr()).toContain('inventory: Postgres (postgres://');
      // Postgres is shared: not PGlite's one-process wording.
      expect(serve.stderr()).toContain('(shared: other serve and worker processes may use it too)');
      expect(serve.stderr()).not.toContain('this process holds it');
      const response = await fetch(`${origin}/api/factory/sites`);
      expect(response.status).toBe(200);
      const body = JSON.stringify(await response.json());
      expect(body).toContain('"siteId":"demo"');
      expect(body).toContain(`"urlCount":${demo.expectation.all.pageUrls}`);
    } finally {
      serve.child.kill('SIGTERM');
      expect((await serve.exited).code).toBe(0);
    }
    // `sites` reads the same inventory from the flag (it took the URL for a folder's name).
    const sites = await runCliIn(['sites', 'list', '--db', url], { env, cwd });
    expect(sites.code, sites.stderr).toBe(0);
    expect(sites.stdout).toContain('"siteId":"demo"');
    // Nothing on disk: no `postgres:` folder, no PGlite default folder.
    expect(existsSync(join(cwd, 'postgres:'))).toBe(false);
    expect(existsSync(join(cwd, '.crawler-factory', 'db'))).toBe(false);
    expect((await readdir(cwd)).filter((name) => name !== '.crawler-factory')).toEqual([]);
  });
});
