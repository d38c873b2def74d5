// One writer per PGlite folder, with real processes: a second `sync` or a `sync` beside `serve` is refused at once
// naming the holder, and a holder killed with SIGKILL leaves a stale lock the next opener takes over, data intact.
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoSite, type DemoSite } from '../../lib/demo/demo-site.js';
import { LOCK_FILE_NAME } from '../../lib/inventory/db-lock.js';
import { startMutableSite, type MutableSite } from '../../lib/inventory/__tests__/inventory-fixtures.js';
import { runMain } from '../../test/helpers/run-cli.js';
import { runCliIn, startCli, startSlowSite, type SlowSite, type SyncRow } from './cli-process.js';

/** A fresh PGlite folder runs initdb in WebAssembly: tens of seconds on this shared machine under load. */
const PGLITE_MS = 180_000;

async function until(check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('one process per PGlite folder', () => {
  let demo: DemoSite;
  let slow: SlowSite;
  let other: MutableSite;
  let work: string;
  // No Redis: these runs use the memory job store, whatever the environment says.
  const env = { REDIS_URL: '', DATABASE_URL: '' };

  beforeAll(async () => {
    demo = await startDemoSite();
    slow = await startSlowSite({ sitemaps: 4, perSitemap: 5_000, chunks: 50, chunkDelayMs: 200 });
    other = await startMutableSite(3_000);
    work = await mkdtemp(join(tmpdir(), 'cli-db-lock-'));
  });
  afterAll(async () => {
    await demo?.close();
    await slow?.close();
    await other?.close();
    await rm(work, { recursive: true, force: true });
  });

  it('refuses a second sync at once, naming the first, which ends done with every URL', { timeout: PGLITE_MS * 2 }, async () => {
    const db = join(work, 'two-syncs');
    const first = startCli(['sync', demo.rootUrl, '--site', 'demo', '--allow-private', '--db', db], { env, cwd: work });
    // The lock is taken before PGlite starts: from here the folder is the first process's.
    await until(() => existsSync(join(db, LOCK_FILE_NAME)), 60_000);
    const second = await runCliIn(['sync', demo.rootUrl, '--site', 'other', '--allow-private', '--db', db], { env, cwd: work });
    expect(second.code, second.stderr).toBe(1);
    expect(second.stderr).toContain('conflict');
    expect(second.stderr).toContain(`in use by process ${first.child.pid}`);
    expect(second.stderr).toContain('--db OTHER_DIR');
    expect(second.stderr).toContain('DATABASE_URL');
    // At once: no PGlite start, no waiting (node's own start-up is most of it).
    expect(second.ms).toBeLessThan(10_000);
    const end = await first.exited;
    expect(end.code, first.stderr()).toBe(0);
    const sync = JSON.parse(first.stdout()) as SyncRow;
    expect(sync).toMatchObject({ state: 'done', seen: demo.expectation.all.pageUrls, new: demo.expectation.all.pageUrls });
    expect(existsSync(join(db, LOCK_FILE_NAME))).toBe(false);
  });

  it('refuses a sync while serve holds the folder, and serve lets go when it stops', { timeout: PGLITE_MS * 2 }, async () => {
    const db = join(work, 'serve');
    const serve = startCli(['serve', '--port', '0', '--db', db, '--allow-private'], { env: { ...env, FACTORY_API_TOKEN: '' }, cwd: work });
    const [, origin] = (await serve.waitForStderr(/on (http:\/\/127\.0\.0\.1:\d+)/)) as RegExpMatchArray;
    expect(serve.stderr()).toContain(`inventory: PGlite in ${db}`);
    // The server opens the inventory on first use: the console's site list.
    const sites = await fetch(`${origin}/api/factory/sites`);
    expect(sites.status).toBe(200);
    const refused = await runCliIn(['sync', demo.rootUrl, '--site', 'demo', '--allow-private', '--db', db], { env, cwd: work });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`conflict: the inventory database in ${db} is in use by process ${serve.child.pid}`);
    serve.child.kill('SIGTERM');
    expect((await serve.exited).code).toBe(0);
    expect(existsSync(join(db, LOCK_FILE_NAME))).toBe(false);
  });

  it(
    'sync, then serve, a sync beside it refused, a sync through the API, serve stopped: the folder opens with both sites',
    { timeout: PGLITE_MS * 3 },
    async () => {
      // The sequence, in an empty folder: before the lock it ended with every command failing on `Aborted()`.
      const db = join(work, 'sequence');
      const first = await runCliIn(['sync', demo.rootUrl, '--site', 'demo', '--allow-private', '--db', db], { env, cwd: work });
      expect(first.code, first.stderr).toBe(0);
      const serve = startCli(['serve', '--port', '0', '--db', db, '--allow-private'], { env: { ...env, FACTORY_API_TOKEN: '' }, cwd: work });
      const [, origin] = (await serve.waitForStderr(/on (http:\/\/127\.0\.0\.1:\d+)/)) as RegExpMatchArray;
      expect((await fetch(`${origin}/api/factory/sites`)).status).toBe(200);
      const beside = await runCliIn(['sync', other.rootUrl, '--site', 'other', '--allow-private', '--db', db], { env, cwd: work });
      expect(beside.code).toBe(1);
      expect(beside.stderr).toContain(`in use by process ${serve.child.pid}`);
      expect(beside.stderr).toContain('--db OTHER_DIR');
      const api = (path: string, body: unknown) =>
        fetch(`${origin}/api/factory/sites${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect((await api('', { rootUrl: other.rootUrl, siteId: 'other' })).status).toBe(201);
      const started = await api('/other/sync', {});
      expect(started.status).toBe(201);
      const { syncId } = (await started.json()) as { syncId: string };
      // serve drives the sync on; its status comes from the same folder.
      let state = 'running';
      while (state === 'running') {
        await new Promise((resolve) => setTimeout(resolve, 200));
        state = ((await (await fetch(`${origin}/api/factory/sites/other/syncs/${syncId}`)).json()) as SyncRow).state;
      }
      expect(state).toBe('done');
      serve.child.kill('SIGTERM');
      expect((await serve.exited).code, serve.stderr()).toBe(0);
      expect(existsSync(join(db, LOCK_FILE_NAME))).toBe(false);
      // Everything still opens: the sites with their URLs, and another sync.
      const list = await runCliIn(['sites', 'list', '--db', db], { env, cwd: work });
      expect(list.code, list.stderr).toBe(0);
      const sites = list.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { siteId: string; urlCount: number });
      expect(sites.map((site) => [site.siteId, site.urlCount])).toEqual([
        ['demo', demo.expectation.all.pageUrls],
        ['other', 3_000],
      ]);
      const again = await runCliIn(['sync', other.rootUrl, '--site', 'other', '--allow-private', '--full', '--db', db], { env, cwd: work });
      expect(again.code, again.stderr).toBe(0);
      expect(JSON.parse(again.stdout)).toMatchObject({ state: 'done', seen: 3_000, new: 0, removed: 0 });
    },
  );

  it('takes over the lock of a process killed with SIGKILL, with the data it committed intact', { timeout: PGLITE_MS * 3 }, async () => {
    const db = join(work, 'killed');
    const done = await runCliIn(['sync', demo.rootUrl, '--site', 'demo', '--allow-private', '--db', db], { env, cwd: work });
    expect(done.code, done.stderr).toBe(0);
    // SIGINT: the sync winds down and lets go of the folder. On the memory store its job cannot outlive the
    // process, so the sync ends stopped instead of blocking the site's next sync as `running`.
    const interrupted = startCli(['sync', slow.indexUrl, '--site', 'slow', '--allow-private', '--db', db, '--budget', '500'], { env, cwd: work });
    await new Promise<void>((resolve) => (slow.onFirstSitemap = resolve));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    interrupted.child.kill('SIGINT');
    expect((await interrupted.exited).code, interrupted.stderr()).toBe(0);
    expect(interrupted.stderr()).toContain('the memory job store cannot resume it');
    expect(JSON.parse(interrupted.stdout())).toMatchObject({ state: 'stopped', removed: 0 });
    expect(existsSync(join(db, LOCK_FILE_NAME))).toBe(false);
    const killed = startCli(['sync', slow.indexUrl, '--site', 'slow', '--allow-private', '--db', db, '--budget', '500'], { env, cwd: work });
    const streaming = new Promise<void>((resolve) => (slow.onFirstSitemap = resolve));
    await streaming;
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    killed.child.kill('SIGKILL');
    await killed.exited;
    const stale = JSON.parse(readFileSync(join(db, LOCK_FILE_NAME), 'utf8')) as { pid: number };
    expect(stale.pid).toBe(killed.child.pid);
    // A new opener: the stale lock is taken over; the demo site's rows, committed before the kill, are all there.
    const again = await runCliIn(['sync', demo.rootUrl, '--site', 'demo', '--allow-private', '--full', '--db', db], { env, cwd: work });
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ state: 'done', seen: demo.expectation.all.pageUrls, new: 0, removed: 0 });
    expect(existsSync(join(db, LOCK_FILE_NAME))).toBe(false);
  });

  it('a signal while the folder is opening starts no sync: exit 130, the folder let go', { timeout: PGLITE_MS }, async () => {
    const db = join(work, 'early-signal');
    // In this process: the CLI's handlers are on `process`, so an emitted signal reaches them as a real one would.
    const running = runMain(['sync', demo.rootUrl, '--site', 'early', '--allow-private', '--db', db], { env });
    await until(() => existsSync(join(db, LOCK_FILE_NAME)), 30_000);
    process.emit('SIGINT', 'SIGINT');
    const run = await running;
    expect(run.code, run.stderr).toBe(130);
    expect(run.stderr).toContain('stopped before the sync started');
    expect(run.stdout).toBe('');
    expect(existsSync(join(db, LOCK_FILE_NAME))).toBe(false);
  });
});
