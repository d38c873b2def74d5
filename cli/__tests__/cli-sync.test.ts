import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoSite, type DemoSite } from '../../lib/demo/demo-site.js';
import { useCliSchema } from '../../lib/inventory/__tests__/inventory-fixtures.js';
import { runCli } from '../../test/helpers/run-cli.js';

describe('crawler-factory sync', () => {
  const { schema, env, admin } = useCliSchema('inv_cli');
  let site: DemoSite;

  beforeAll(async () => {
    site = await startDemoSite();
  });
  afterAll(async () => {
    await site?.close();
  });

  it('syncs the demo site into the inventory with progress, and a done sync resumes as done', { timeout: 120_000 }, async () => {
    const run = await runCli(['sync', site.rootUrl, '--site', 'demo', '--allow-private', '--progress'], env, 110_000);
    expect(run.stderr).toContain('resumable only within this process');
    expect(run.code).toBe(0);
    type Failed = { url: string; kind: string; fate: string };
    const sync = JSON.parse(run.stdout) as {
      syncId: string;
      state: string;
      seen: number;
      new: number;
      errors: Record<string, number>;
      failedSitemaps: Failed[];
    };
    expect(sync).toMatchObject({ state: 'done', seen: site.expectation.all.pageUrls, new: site.expectation.all.pageUrls, keptUnread: 0 });
    expect(sync.errors.http_status).toBe(site.expectation.all.failures.length);
    // The demo's missing sitemaps answer 404: each is named in the final output, gone.
    const failed = sync.failedSitemaps.map(({ url, kind, fate }) => ({ url, kind, fate })).sort((a, b) => (a.url < b.url ? -1 : 1));
    const expected = site.expectation.all.failures.map(({ url, kind }) => ({ url, kind, fate: 'gone' })).sort((a, b) => (a.url < b.url ? -1 : 1));
    expect(failed).toEqual(expected);
    const rows = await admin.query(`SELECT count(*)::int AS n FROM ${schema}.urls WHERE site_id = 'demo'`);
    expect(rows.rows[0]).toEqual({ n: site.expectation.all.pageUrls });
    const again = await runCli(['sync', '--resume', sync.syncId], env, 60_000);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ syncId: sync.syncId, state: 'done', seen: sync.seen });
  });

  it('refuses a malformed --resume id as a usage error', async () => {
    const run = await runCli(['sync', '--resume', 'not an id'], env);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('invalid syncId');
  });
});
