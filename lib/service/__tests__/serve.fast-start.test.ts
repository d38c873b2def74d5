// A sync start against a fast site answers promptly even when the site outruns the inventory: a real built `serve` on
// PGlite (the slowest sink) reads a 200,000-URL loopback tree far faster than it applies it. The start's slice applies
// what it can before its deadline and leaves the rest to the background, which takes the sync to done with every URL.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../test/helpers/redis-server.js';
import { startBenchTree, type BenchTree } from '../../../test/sites/bench-tree.js';
import { BUILT_BIN, startServe, syncWhenEnded, type ServeProcess } from './serve-process.js';

const CHILDREN = 8;
const PER_CHILD = 25_000;

interface SyncBody {
  syncId: string;
  state: string;
  urlsFound: number;
  shardsWritten: number;
  shardsApplied: number;
}

describe('a sync start on a site faster than the inventory', () => {
  let tree: BenchTree;
  let folder: string;
  let serve: ServeProcess | null = null;

  beforeAll(async () => {
    [tree, folder] = await Promise.all([startBenchTree({ children: CHILDREN, perChild: PER_CHILD, wire: 'plain' }), mkdtemp(join(tmpdir(), 'cf-fast-start-'))]);
  });
  afterAll(async () => {
    await serve?.stop('SIGKILL');
    await tree?.close();
    await rm(folder, { recursive: true, force: true });
  });

  it('answers 201 within 2.5 s with shards left to apply, and the background applies them all', { timeout: 240_000 }, async () => {
    serve = await startServe({
      port: await freePort(),
      bin: BUILT_BIN,
      args: ['--db', join(folder, 'db')],
      env: { FACTORY_ALLOW_HOSTS: `127.0.0.1:${new URL(tree.indexUrl).port}` },
    });
    const api = (path: string, init: RequestInit = {}) =>
      fetch(`${serve!.origin}/api/factory/sites${path}`, { ...init, headers: { 'content-type': 'application/json' } });
    // The first inventory request opens the folder: not part of the start being timed.
    expect((await api('', { method: 'POST', body: JSON.stringify({ rootUrl: tree.indexUrl, siteId: 'fast' }) })).status).toBe(201);

    const startedAt = Date.now();
    const start = await api('/fast/sync', { method: 'POST' });
    const startMs = Date.now() - startedAt;
    expect(start.status).toBe(201);
    expect(startMs).toBeLessThan(2_500);
    const started = (await start.json()) as SyncBody;
    expect(started.state).toBe('running');
    // The slice read more than it had time to apply: what is left waits for the next slice instead of holding the 201.
    expect(started.shardsWritten).toBeGreaterThan(started.shardsApplied);

    const sync = await syncWhenEnded<SyncBody>(serve.origin, 'fast', started.syncId, 200_000);
    expect(sync).toMatchObject({ state: 'done', urlsFound: CHILDREN * PER_CHILD, shardsApplied: sync.shardsWritten });
    const { sites } = (await (await api('')).json()) as { sites: Array<{ siteId: string; urlCount: number }> };
    expect(sites).toMatchObject([{ siteId: 'fast', urlCount: CHILDREN * PER_CHILD }]);
    expect(await serve.stop('SIGTERM')).toBe(0);
    serve = null;
  });
});
