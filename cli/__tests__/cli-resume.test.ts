// Stopping and resuming real `sync` and `job run` processes: SIGTERM commits and prints the resume command (exit 0);
// after a SIGKILL, `--resume ID` alone runs with the settings the run started with (--allow-private, --store), so
// nothing is refused, nothing removed, and every URL arrives exactly once.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestSchema } from '../../lib/inventory/__tests__/inventory-fixtures.js';
import { startTestRedis, type TestRedis } from '../../test/helpers/redis-server.js';
import { runCliIn, startCli, startSlowSite, type CliProcess, type SlowSite, type SyncRow } from './cli-process.js';

/** Resolves once the site's first urlset has streamed for `afterMs`. */
function streamingFor(site: SlowSite, afterMs: number): Promise<void> {
  return new Promise((resolve) => (site.onFirstSitemap = () => setTimeout(resolve, afterMs)));
}

async function stopWhileStreaming(site: SlowSite, run: CliProcess, signal: NodeJS.Signals, afterMs: number) {
  await streamingFor(site, afterMs);
  run.child.kill(signal);
  return run.exited;
}

describe('stop and resume with real processes', () => {
  const { schema, databaseUrl, admin } = useTestSchema('cli_resume');
  let redis: TestRedis;
  let site: SlowSite;
  let cwd: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    // Four urlsets of 5,000 pages, each dripped over 10 s: a signal or a kill always lands mid-read.
    site = await startSlowSite({ sitemaps: 4, perSitemap: 5_000, chunks: 50, chunkDelayMs: 200 });
    redis = await startTestRedis();
    cwd = await mkdtemp(join(tmpdir(), 'cli-resume-'));
    env = { DATABASE_URL: databaseUrl, REDIS_URL: redis.url };
  });
  afterAll(async () => {
    await site?.close();
    await redis?.stop();
    await rm(cwd, { recursive: true, force: true });
  });

  async function urlRows(siteId: string): Promise<{ n: number; distinct: number; removed: number }> {
    const rows = await admin.query(
      `SELECT count(*)::int AS n, count(DISTINCT url)::int AS distinct, count(removed_at)::int AS removed FROM ${schema}.urls WHERE site_id = $1`,
      [siteId],
    );
    return rows.rows[0] as { n: number; distinct: number; removed: number };
  }

  it('sync: SIGTERM commits what was read, prints the resume command and exits 0; the resume ends done', { timeout: 180_000 }, async () => {
    const run = startCli(['sync', site.indexUrl, '--site', 'sigterm', '--allow-private', '--budget', '1000'], { env, cwd });
    const end = await stopWhileStreaming(site, run, 'SIGTERM', 2_000);
    expect(end.code, run.stderr()).toBe(0);
    const stopped = JSON.parse(run.stdout()) as SyncRow & { urlsFound: number };
    expect(stopped.state).toBe('running');
    expect(run.stderr()).toContain(`continue with: crawler-factory sync --resume ${stopped.syncId} (with DATABASE_URL and REDIS_URL set as now)`);
    // What was read is kept: applied, or in Redis as shards the stop did not wait to apply (the resume applies them).
    expect(stopped.urlsFound).toBeGreaterThan(0);
    expect(stopped.urlsFound).toBeLessThan(site.pages.length);
    expect((await urlRows('sigterm')).n).toBeLessThanOrEqual(stopped.urlsFound);
    const resumed = await runCliIn(['sync', '--resume', stopped.syncId], { env, cwd });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain("resume: with the run's --allow-private");
    expect(JSON.parse(resumed.stdout)).toMatchObject({ syncId: stopped.syncId, state: 'done', seen: site.pages.length, removed: 0, errors: {} });
    expect(await urlRows('sigterm')).toEqual({ n: site.pages.length, distinct: site.pages.length, removed: 0 });
  });

  it('sync: after SIGKILL, --resume ID alone keeps --allow-private: done, every URL once, nothing refused or removed', { timeout: 180_000 }, async () => {
    const run = startCli(['sync', site.indexUrl, '--site', 'killed', '--allow-private', '--full', '--budget', '1000'], { env, cwd });
    const [, syncId] = (await run.waitForStderr(/sync ([A-Za-z0-9_-]{22}) into/)) as RegExpMatchArray;
    const end = await stopWhileStreaming(site, run, 'SIGKILL', 2_500);
    expect(end.signal).toBe('SIGKILL');
    const resumed = await runCliIn(['sync', '--resume', syncId ?? ''], { env, cwd });
    expect(resumed.code, resumed.stderr).toBe(0);
    const sync = JSON.parse(resumed.stdout) as SyncRow;
    expect(sync).toMatchObject({ state: 'done', seen: site.pages.length, new: site.pages.length, removed: 0, errors: {} });
    expect(await urlRows('killed')).toEqual({ n: site.pages.length, distinct: site.pages.length, removed: 0 });
    // The run has ended: its settings are forgotten, and a resume from elsewhere says it runs with the flags given.
    const again = await runCliIn(['sync', '--resume', syncId ?? ''], { env, cwd });
    expect(again.code).toBe(0);
    expect(again.stderr).toContain(`resume: no stored settings for ${syncId}`);
  });

  it('sync on the memory job store: after SIGKILL the site names the way out, and --resume ID ends the orphan and frees it', { timeout: 180_000 }, async () => {
    const memory = { ...env, REDIS_URL: '' };
    const run = startCli(['sync', site.indexUrl, '--site', 'orphan', '--allow-private', '--budget', '1000'], { env: memory, cwd });
    const [, syncId] = (await run.waitForStderr(/sync ([A-Za-z0-9_-]{22}) into/)) as RegExpMatchArray;
    expect((await stopWhileStreaming(site, run, 'SIGKILL', 1_500)).signal).toBe('SIGKILL');
    const wayOut = `site orphan has a running sync ${syncId} (last moved `;
    const again = await runCliIn(['sync', site.indexUrl, '--site', 'orphan', '--allow-private'], { env: memory, cwd });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(wayOut);
    expect(again.stderr).toContain(`with: crawler-factory sync --resume ${syncId}`);
    const removal = await runCliIn(['sites', 'rm', 'orphan'], { env: memory, cwd });
    expect(removal.code).toBe(1);
    expect(removal.stderr).toContain(wayOut);
    // The job died with its process: the resume ends the sync failed, saying so, and removes nothing.
    const resumed = await runCliIn(['sync', '--resume', syncId ?? ''], { env: memory, cwd });
    expect(JSON.parse(resumed.stdout)).toMatchObject({ syncId, state: 'failed', removed: 0 });
    expect(resumed.stdout).toContain('is gone from the memory store');
    const fresh = await runCliIn(['sync', site.indexUrl, '--site', 'orphan', '--allow-private'], { env: memory, cwd });
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(JSON.parse(fresh.stdout)).toMatchObject({ state: 'done', seen: site.pages.length, removed: 0 });
  });

  it('job run: after SIGKILL, --resume ID alone keeps --allow-private and --store: every URL exactly once', { timeout: 180_000 }, async () => {
    const run = startCli(['job', 'run', site.indexUrl, '--store', redis.url, '--allow-private', '--budget', '1000', '--timeout', '60000'], {
      env: { REDIS_URL: '' },
      cwd,
    });
    const [, jobId] = (await run.waitForStderr(/job ([A-Za-z0-9_-]{22}) on the redis store/)) as RegExpMatchArray;
    const end = await stopWhileStreaming(site, run, 'SIGKILL', 2_500);
    expect(end.signal).toBe('SIGKILL');
    const resumed = await runCliIn(['job', 'run', '--resume', jobId ?? '', '--urls', '--timeout', '5000'], { env: { REDIS_URL: '' }, cwd });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`resume: with the run's --allow-private, --store ${redis.url}`);
    // A job's limits are stored with it: a different --timeout on resume is said not to apply, not silently dropped.
    expect(resumed.stderr).toContain(`resume: --timeout 5000 is not applied: job ${jobId} keeps the run's 60000`);
    expect(resumed.stderr).not.toContain('warning: in-memory job store');
    const urls = resumed.stdout.split('\n').filter(Boolean);
    expect(urls.length).toBe(site.pages.length);
    expect([...new Set(urls)].sort()).toEqual([...site.pages].sort());
  });
});
