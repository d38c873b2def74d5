// `serve` stops within seconds even while it applies a big site's shards, when its job store keeps them: a real built
// `serve` on PGlite and a private Redis reads a 320,000-URL loopback tree far faster than it applies it, is sent SIGTERM
// mid-apply, and exits promptly; started again on the same folder and Redis, it resumes the sync and applies the
// shards the first one left, to `done` with every URL once.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startTestRedis, type TestRedis } from '../../../test/helpers/redis-server.js';
import { startBenchTree, type BenchTree } from '../../../test/sites/bench-tree.js';
import { BUILT_BIN, startServe, syncWhenEnded, type ServeProcess } from './serve-process.js';

const CHILDREN = 8;
const PER_CHILD = 40_000;

interface SyncBody {
  syncId: string;
  state: string;
  new: number;
  urlsFound: number;
  shardsWritten: number;
  shardsApplied: number;
}

describe('serve stopped while it applies', () => {
  let tree: BenchTree;
  let redis: TestRedis;
  let folder: string;
  let serve: ServeProcess | null = null;

  beforeAll(async () => {
    [tree, redis, folder] = await Promise.all([
      startBenchTree({ children: CHILDREN, perChild: PER_CHILD, wire: 'plain' }),
      startTestRedis(),
      mkdtemp(join(tmpdir(), 'cf-prompt-stop-')),
    ]);
  });
  afterAll(async () => {
    await serve?.stop('SIGKILL');
    await Promise.all([tree?.close(), redis?.stop()]);
    await rm(folder, { recursive: true, force: true });
  });

  const startServing = async () =>
    startServe({
      port: await freePort(),
      bin: BUILT_BIN,
      args: ['--db', join(folder, 'db')],
      env: { REDIS_URL: redis.url, FACTORY_ALLOW_HOSTS: `127.0.0.1:${new URL(tree.indexUrl).port}` },
    });

  it('exits 0 within seconds mid-apply, and the next start applies what was left, to done', { timeout: 240_000 }, async () => {
    serve = await startServing();
    const api = (path: string, init: RequestInit = {}) =>
      fetch(`${serve!.origin}/api/factory/sites${path}`, { ...init, headers: { 'content-type': 'application/json' } });
    expect((await api('', { method: 'POST', body: JSON.stringify({ rootUrl: tree.indexUrl, siteId: 'big' }) })).status).toBe(201);
    const start = await api('/big/sync', { method: 'POST' });
    expect(start.status).toBe(201);
    const { syncId } = (await start.json()) as SyncBody;
    await sleep(2_000);
    const before = (await (await api(`/big/syncs/${syncId}`)).json()) as SyncBody;
    expect(before.state).toBe('running');

    const stoppedAt = Date.now();
    expect(await serve.stop('SIGTERM')).toBe(0);
    const stopMs = Date.now() - stoppedAt;
    serve = null;
    // The shards read and not applied wait in Redis: the stop does not wait for them (PGlite applies ~15,000 rows/s).
    expect(stopMs).toBeLessThan(5_000);

    serve = await startServing();
    expect(serve.stderr()).toContain(`resumed 1 running sync(s): ${syncId}`);
    const sync = await syncWhenEnded<SyncBody>(serve.origin, 'big', syncId, 200_000);
    expect(sync).toMatchObject({ state: 'done', urlsFound: CHILDREN * PER_CHILD, new: CHILDREN * PER_CHILD, shardsApplied: sync.shardsWritten });
    expect(await serve.stop('SIGTERM')).toBe(0);
    serve = null;
  });
});
