// `crawler-factory sites list|rm|set` and the root checks of `sync <rootUrl>`, over a Postgres schema of their own
// (DATABASE_URL carries it, as any deployment could), and `serve` on a busy port.
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMutableSite, useCliSchema, type MutableSite } from '../../lib/inventory/__tests__/inventory-fixtures.js';
import { runCli, runMain } from '../../test/helpers/run-cli.js';

describe('crawler-factory sites', () => {
  const { schema, env, admin } = useCliSchema('inv_sites_cli');
  let site: MutableSite;

  beforeAll(async () => {
    site = await startMutableSite(300);
  });
  afterAll(async () => {
    await site?.close();
  });

  it('refuses roots with credentials, no authority or a metadata or private host before creating the site', async () => {
    const credentials = await runMain(['sync', 'https://user:pw@example.com/'], { env });
    expect(credentials.code).toBe(2);
    expect(credentials.stderr).toContain('invalid_url: a root URL must not hold credentials (user:password@): credentials are never sent to a site');
    const empty = await runMain(['sync', 'http:///etc/passwd'], { env });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('invalid_url: no host after http:');
    const metadata = await runMain(['sync', 'http://169.254.169.254/', '--allow-private'], { env });
    expect(metadata.code).toBe(1);
    expect(metadata.stderr).toContain('blocked_ssrf');
    const loopback = await runMain(['sync', site.rootUrl], { env });
    expect(loopback.code).toBe(1);
    expect(loopback.stderr).toContain('blocked_ssrf');
    expect((await runMain(['sites', 'list'], { env })).stdout).toBe('');
  });

  it('lists (NDJSON), sets options and the sub-tree, and removes a site with every row of it', { timeout: 90_000 }, async () => {
    const sync = await runMain(['sync', site.rootUrl, '--site', 'shop', '--allow-private', '--quiet'], { env });
    expect(sync.code).toBe(0);
    const listed = await runCli(['sites', 'list'], env);
    expect(listed.code).toBe(0);
    const lines = listed.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { siteId: string; urlCount: number });
    expect(lines).toMatchObject([{ siteId: 'shop', urlCount: 300 }]);

    const set = await runMain(['sites', 'set', 'shop', '--max-urls', '1000', '--path-prefix', '/blog', '--locale', 'fr'], { env });
    expect(set.code).toBe(0);
    expect(JSON.parse(set.stdout)).toMatchObject({ siteId: 'shop', options: { maxUrls: 1_000, filter: { pathPrefixes: ['/blog/'], locales: ['fr'] } } });
    const unset = await runMain(['sites', 'set', 'shop', '--unset', 'max-urls'], { env });
    expect((JSON.parse(unset.stdout) as { options: object }).options).not.toHaveProperty('maxUrls');
    const badRoot = await runMain(['sites', 'set', 'shop', '--root', 'http://10.0.0.1/'], { env });
    expect(badRoot.code).toBe(1);
    expect(badRoot.stderr).toContain('blocked_ssrf');
    expect((await runMain(['sites', 'set', 'shop', '--max-urls', 'lots'], { env })).code).toBe(2);

    const removed = await runMain(['sites', 'rm', 'shop'], { env });
    expect(removed.code).toBe(0);
    expect(JSON.parse(removed.stdout)).toMatchObject({ siteId: 'shop', deleted: true, rows: { urls: 300, sites: 1 } });
    const rows = await admin.query(`SELECT (SELECT count(*) FROM ${schema}.urls)::int AS urls, (SELECT count(*) FROM ${schema}.syncs)::int AS syncs`);
    expect(rows.rows[0]).toEqual({ urls: 0, syncs: 0 });
    const again = await runMain(['sites', 'rm', 'shop'], { env });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('not_found: no site shop');
  });

  it('sets a schedule with sync --schedule when it adds the site and with sites set --schedule, and refuses one under 15m', { timeout: 90_000 }, async () => {
    const sync = await runMain(['sync', site.rootUrl, '--site', 'daily', '--schedule', '24h', '--allow-private', '--quiet'], { env });
    expect(sync.code).toBe(0);
    const finished = Date.parse((JSON.parse(sync.stdout) as { finishedAt: string }).finishedAt);
    const [daily] = (await admin.query(`SELECT schedule_ms::bigint AS ms, next_sync_at AS next FROM ${schema}.sites WHERE site_id = 'daily'`)).rows as Array<{
      ms: string;
      next: Date;
    }>;
    expect(Number(daily?.ms)).toBe(86_400_000);
    // Moved on from the sync's end, with at most 10% jitter.
    expect(daily!.next.getTime() - finished).toBeGreaterThanOrEqual(86_400_000 - 1_000);
    expect(daily!.next.getTime() - finished).toBeLessThanOrEqual(95_040_000 + 1_000);
    const set = await runCli(['sites', 'set', 'daily', '--schedule', '30m'], env);
    expect(set.code).toBe(0);
    expect(JSON.parse(set.stdout)).toMatchObject({ siteId: 'daily', schedule: '30m', nextSyncAt: expect.any(String) });
    const off = await runMain(['sites', 'set', 'daily', '--schedule', 'off'], { env });
    expect(JSON.parse(off.stdout)).toMatchObject({ schedule: 'off', nextSyncAt: null });
    const tooOften = await runMain(['sites', 'set', 'daily', '--schedule', '5m'], { env });
    expect(tooOften.code).toBe(2);
    expect(tooOften.stderr).toContain('--schedule: schedule must be at least 15m');
    expect((await runMain(['sites', 'rm', 'daily'], { env })).code).toBe(0);
  });

  it('refuses a busy port for serve as a usage error naming it', async () => {
    const holder = createServer();
    await new Promise<void>((ready) => holder.listen(0, '127.0.0.1', ready));
    const { port } = holder.address() as { port: number };
    try {
      const run = await runMain(['serve', '--port', String(port)], { env: { REDIS_URL: '', DATABASE_URL: '' } });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`port ${port} is in use: choose another with --port`);
    } finally {
      await new Promise<void>((done) => holder.close(() => done()));
    }
  });
});
