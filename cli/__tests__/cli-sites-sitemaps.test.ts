// `crawler-factory sites sitemaps ID` through the built bin, after a real `sync` of the demo site (its 404 child
// planted): the records failing first, filtered, one with its reads; on Postgres (DATABASE_URL) and on PGlite (--db).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoSite, type DemoSite } from '../../lib/demo/demo-site.js';
import { PGLITE_START_MS, useCliSchema } from '../../lib/inventory/__tests__/inventory-fixtures.js';
import { SitemapRecordSchema } from '../../lib/inventory/index.js';
import { BUILT_BIN, ndjson, runCli } from '../../test/helpers/run-cli.js';

let demo: DemoSite;
beforeAll(async () => {
  demo = await startDemoSite({ scale: 0.05 });
});
afterAll(async () => demo?.close());

/** Syncs the demo site as `demo` with `store` flags and env, then checks what `sites sitemaps` says of it. */
async function expectRecords(flags: string[], env: NodeJS.ProcessEnv): Promise<void> {
  const run = (args: string[]) => runCli(args, env, PGLITE_START_MS, BUILT_BIN);
  const synced = await run(['sync', demo.rootUrl, '--site', 'demo', '--allow-private', '--quiet', ...flags]);
  expect(synced.code, synced.stderr).toBe(0);
  const listed = await run(['sites', 'sitemaps', 'demo', ...flags]);
  expect(listed.code, listed.stderr).toBe(0);
  const records = ndjson(listed.stdout).map((line) => SitemapRecordSchema.parse(line));
  expect(records.length).toBeGreaterThan(20);
  expect(records[0]).toMatchObject({ url: demo.url('/sitemaps/news/archive-2019.xml'), status: 'failed', failStreak: 1, failure: { httpStatus: 404 } });
  expect(records.filter((r) => r.status === 'failed')).toHaveLength(1);
  expect(records.find((r) => r.url === demo.url('/sitemap_index.xml'))).toMatchObject({ kind: 'sitemapindex', foundVia: 'robots', status: 'ok' });
  const indexes = ndjson((await run(['sites', 'sitemaps', 'demo', '--kind', 'sitemapindex', ...flags])).stdout);
  expect(indexes.every((line) => line.kind === 'sitemapindex')).toBe(true);
  const one = await run(['sites', 'sitemaps', 'demo', '--id', String(records[0]?.sitemapId), ...flags]);
  expect(JSON.parse(one.stdout)).toMatchObject({ status: 'failed', reads: [{ status: 'failed', errors: 1 }] });
  const bad = await run(['sites', 'sitemaps', 'demo', '--status', 'broken', ...flags]);
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain('--status');
  const missing = await run(['sites', 'sitemaps', 'nobody', ...flags]);
  expect(missing.code).toBe(1);
  expect(missing.stderr).toContain('no site nobody');
}

describe('sites sitemaps on Postgres', () => {
  const { env } = useCliSchema('inv_cli_sitemaps');
  it('lists the records failing first, filters, and gives one with its reads', { timeout: 120_000 }, async () => {
    await expectRecords([], env);
  });
});

describe('sites sitemaps on PGlite', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cli-sitemaps-'));
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));
  it('the same through --db DIR', { timeout: PGLITE_START_MS }, async () => {
    await expectRecords(['--db', join(dir, 'db')], { DATABASE_URL: '', REDIS_URL: '' });
  });
});
