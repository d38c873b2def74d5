// `sync` stops within seconds on SIGTERM even while it applies a big site's shards, when its job store keeps them
// (Redis): it waited for the whole apply (19.4 s on PGlite for 300,000 URLs, 150 s on Postgres). The built bin on PGlite
// and a private Redis reads a 160,000-URL loopback tree far faster than it applies it, is stopped mid-apply, prints the
// resume line and exits 0; the resume applies the shards left, to `done` with every URL once.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRedis, type TestRedis } from '../../test/helpers/redis-server.js';
import { startBenchTree, type BenchTree } from '../../test/sites/bench-tree.js';
import { runCliIn, startCli, type SyncRow } from './cli-process.js';

const CHILDREN = 4;
const PER_CHILD = 40_000;

describe('sync stopped while it applies', () => {
  let tree: BenchTree;
  let redis: TestRedis;
  let cwd: string;

  beforeAll(async () => {
    [tree, redis, cwd] = await Promise.all([
      startBenchTree({ children: CHILDREN, perChild: PER_CHILD, wire: 'plain' }),
      startTestRedis(),
      mkdtemp(join(tmpdir(), 'cli-sync-prompt-stop-')),
    ]);
  });
  afterAll(async () => {
    await Promise.all([tree?.close(), redis?.stop()]);
    await rm(cwd, { recursive: true, force: true });
  });

  it('exits 0 within seconds mid-apply with the resume line, and the resume applies what was left, to done', { timeout: 240_000 }, async () => {
    const env = { DATABASE_URL: '', REDIS_URL: redis.url };
    const args = ['--db', join(cwd, 'db'), '--allow-private', '--site', 'big'];
    const run = startCli(['sync', tree.indexUrl, ...args], { env, cwd });
    await run.waitForStderr(/sync [A-Za-z0-9_-]{22} into/);
    await sleep(4_000);
    const stoppedAt = Date.now();
    run.child.kill('SIGTERM');
    const end = await run.exited;
    expect(end.code, run.stderr()).toBe(0);
    // The shards read and not applied wait in Redis: the stop does not wait for them (PGlite applies ~15,000 rows/s).
    expect(Date.now() - stoppedAt).toBeLessThan(5_000);
    const stopped = JSON.parse(run.stdout()) as SyncRow & { shardsWritten: number; shardsApplied: number };
    expect(stopped.state).toBe('running');
    expect(stopped.shardsApplied).toBeLessThan(stopped.shardsWritten);
    expect(run.stderr()).toContain(`continue with: crawler-factory sync --resume ${stopped.syncId} --db ${join(cwd, 'db')} (with REDIS_URL set as now)`);

    const resumed = await runCliIn(['sync', '--resume', stopped.syncId], { env, cwd });
    expect(resumed.code, resumed.stderr).toBe(0);
    const done = JSON.parse(resumed.stdout) as SyncRow & { shardsWritten: number; shardsApplied: number };
    expect(done).toMatchObject({ syncId: stopped.syncId, state: 'done', seen: CHILDREN * PER_CHILD, new: CHILDREN * PER_CHILD, removed: 0 });
    expect(done.shardsApplied).toBe(done.shardsWritten);
  });
});
