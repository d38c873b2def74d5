import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRedis, type TestRedis } from '../../../test/helpers/redis-server.js';
import { connectRedisJobStore } from '../../store/open-job-store.js';
import { MemoryJobStore } from '../../store/memory-job-store.js';
import { createSite } from '../sites.js';
import { advanceSync, startSync } from '../sync-driver.js';
import {
  DATABASES,
  LOOPBACK_NET,
  PGLITE_START_MS,
  historyFacts,
  startMutableSite,
  syncSite,
  syncToEnd,
  urlFacts,
  type MutableSite,
  useTestDb,
} from './inventory-fixtures.js';

const PAGES = 8_000;

/** Runs the sync in a child process and kills it with SIGKILL once it has applied some, not all, of the shards. */
function crashChild(env: Record<string, string>): Promise<{ killedAt: { seen: number; state: string } }> {
  const child = spawn(process.execPath, ['bin/run-ts.mjs', 'lib/inventory/__tests__/sync-worker.ts'], {
    env: { ...process.env, ...env, LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      const step = JSON.parse(line) as { seen: number; state: string };
      if (step.seen > 0 && child.exitCode === null && !child.killed) {
        child.kill('SIGKILL');
        child.once('exit', () => resolve({ killedAt: step }));
      }
    });
    child.once('exit', (code, signal) => {
      if (signal !== 'SIGKILL') reject(new Error(`sync worker ended by itself (${code}) before it could be killed`));
    });
  });
}

describe.each(DATABASES)('inventory sync on $name', ({ name, open }) => {
  let site: MutableSite;
  const test = useTestDb(open);
  let redis: TestRedis;

  beforeAll(async () => {
    site = await startMutableSite(PAGES);
    redis = await startTestRedis();
  }, PGLITE_START_MS);
  afterAll(async () => {
    await site?.close();
    await redis?.stop();
  });

  it('loses and duplicates no row when the syncing process is killed with SIGKILL and the sync resumes', { timeout: PGLITE_START_MS * 2 }, async () => {
    const store = await connectRedisJobStore(redis.url);
    let db = test.db;
    // One sitemap at a time, each slow: a 300 ms slice stops claiming after one or two, so the kill lands mid-sync
    // (a slice no longer abandons reads at its budget).
    await createSite(db, { rootUrl: site.rootUrl, siteId: 'crash', options: { concurrency: 1 } });
    site.delayMs = 200;
    const sync = await startSync({ db, store, net: LOOPBACK_NET }, 'crash');
    // PGlite is one process per directory: the parent lets go while the child runs.
    if (name === 'pglite') await db.close();
    const { killedAt } = await crashChild({ ...test.env, REDIS_URL: redis.url, SYNC_ID: sync.syncId });
    expect(killedAt.state).toBe('running');
    site.delayMs = 0;
    if (name === 'pglite') test.db = db = await test.reopen();
    const done = await syncToEnd({ db, store, net: LOOPBACK_NET }, sync.syncId);
    await store.close();
    expect(done).toMatchObject({ state: 'done', seen: PAGES, new: PAGES, changed: 0, removed: 0 });
    expect(done.seen).toBeGreaterThan(killedAt.seen);
    const facts = await urlFacts(db, 'crash');
    expect(facts.map((row) => row.url)).toEqual([...site.pages.keys()].sort());
    expect(await historyFacts(db, 'crash')).toEqual([]);
    const parts = await db.query('SELECT count(*)::int AS n, sum(rows)::int AS rows FROM sync_parts WHERE sync_id = $1', [sync.syncId]);
    expect(parts[0]).toEqual({ n: 16, rows: PAGES });
  });

  it('gives the same rows and counts with two workers on one sync as with one', async () => {
    const store = new MemoryJobStore();
    const runtime = { db: test.db, store, net: LOOPBACK_NET };
    await createSite(test.db, { rootUrl: site.rootUrl, siteId: 'one-worker' });
    await createSite(test.db, { rootUrl: site.rootUrl, siteId: 'two-workers' });
    const single = await syncSite(runtime, 'one-worker');
    const shared = await startSync(runtime, 'two-workers');
    const second = name === 'postgres' ? { ...runtime, db: await test.reopen() } : runtime;
    const [a, b] = await Promise.all([syncToEnd(runtime, shared.syncId), syncToEnd(second, shared.syncId)]);
    if (second !== runtime) await second.db.close();
    expect(a).toMatchObject({ state: 'done', message: null });
    expect(b.state).toBe('done');
    const final = await advanceSync(runtime, shared.syncId, { budgetMs: 100 });
    const counts = (sync: typeof final) => ({
      seen: sync.seen,
      new: sync.new,
      changed: sync.changed,
      removed: sync.removed,
      shardsApplied: sync.shardsApplied,
    });
    expect(counts(final)).toEqual(counts(single));
    expect(await urlFacts(test.db, 'two-workers')).toEqual(await urlFacts(test.db, 'one-worker'));
  });
});
