// `sync` and `serve` through the built bin run in a worker whose old space is sized for the work (cli/sized-heap.ts):
// the heap limit each runs under, their own outcomes (a sync done, a server that stops cleanly on SIGTERM), and a
// user's own --max-old-space-size taking precedence.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../test/helpers/redis-server.js';
import { BUILT_BIN, postSites, startServe } from '../../lib/service/__tests__/serve-process.js';
import { SIZED_HEAP_MB } from '../sized-heap.js';
import { runCliIn, startSlowSite, type SlowSite, type SyncRow } from './cli-process.js';

// The heap limit a sized worker logged at start (its debug event), or NaN when none ran.
const loggedHeapLimit = (stderr: string): number => Number(stderr.match(/"event":"sized_heap","heapLimitMb":(\d+)/)?.[1]);

describe('sync and serve in a sized heap', () => {
  let site: SlowSite;
  let cwd: string;

  beforeAll(async () => {
    site = await startSlowSite({ sitemaps: 3, perSitemap: 700, chunks: 1, chunkDelayMs: 0 });
    cwd = await mkdtemp(join(tmpdir(), 'cli-sized-heap-'));
  });
  afterAll(async () => {
    await site?.close();
    await rm(cwd, { recursive: true, force: true });
  });

  const sync = (siteId: string, env: NodeJS.ProcessEnv) =>
    runCliIn(['sync', site.indexUrl, '--site', siteId, '--db', join(cwd, 'db'), '--allow-private'], {
      cwd,
      env: { DATABASE_URL: '', FACTORY_LOG_LEVEL: 'debug', ...env },
    });

  it('runs under a heap limit of its old space and a young generation, and ends done with every URL', { timeout: 180_000 }, async () => {
    const run = await sync('sized', { NODE_OPTIONS: '' });
    expect(run.code, run.stderr).toBe(0);
    expect(loggedHeapLimit(run.stderr)).toBeGreaterThan(SIZED_HEAP_MB.sync);
    expect(loggedHeapLimit(run.stderr)).toBeLessThan(SIZED_HEAP_MB.sync * 2);
    expect(JSON.parse(run.stdout) as SyncRow).toMatchObject({ state: 'done', new: site.pages.length, errors: {} });
  });

  it("keeps the user's own --max-old-space-size: the sync runs in the process, as before", { timeout: 180_000 }, async () => {
    const run = await sync('users-heap', { NODE_OPTIONS: '--max-old-space-size=1024' });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toContain('sized_heap');
    expect(JSON.parse(run.stdout) as SyncRow).toMatchObject({ state: 'done', new: site.pages.length });
  });

  it('serves from a worker of its own heap size, syncs through the API and stops cleanly on SIGTERM', { timeout: 180_000 }, async () => {
    const serve = await startServe({
      port: await freePort(),
      bin: BUILT_BIN,
      cwd,
      args: ['--db', join(cwd, 'serve-db'), '--allow-private'],
      env: { DATABASE_URL: '', NODE_OPTIONS: '', FACTORY_LOG_LEVEL: 'debug' },
    });
    try {
      expect(loggedHeapLimit(serve.stderr())).toBeGreaterThan(SIZED_HEAP_MB.serve);
      expect(loggedHeapLimit(serve.stderr())).toBeLessThan(SIZED_HEAP_MB.serve * 2);
      expect((await postSites(serve.origin, '', { rootUrl: site.indexUrl, siteId: 'served' })).status).toBe(201);
      const started = (await (await postSites(serve.origin, '/served/sync', { budgetMs: 30_000 })).json()) as SyncRow;
      expect(started).toMatchObject({ state: 'done', new: site.pages.length });
    } finally {
      // The signal reaches the server in its worker: it shuts down and the process exits 0.
      expect(await serve.stop('SIGTERM')).toBe(0);
    }
  });
});
