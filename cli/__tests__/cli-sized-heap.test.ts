// `sync` through the built bin runs in a worker whose old space is sized for the work (cli/sized-heap.ts): the heap
// limit the sync runs under, the sync's own outcome, and a user's own --max-old-space-size taking precedence.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYNC_HEAP_MB } from '../sized-heap.js';
import { runCliIn, startSlowSite, type SlowSite, type SyncRow } from './cli-process.js';

describe('sync in a sized heap', () => {
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
    const [, limit] = run.stderr.match(/"event":"sized_heap","heapLimitMb":(\d+)/) ?? [];
    expect(Number(limit)).toBeGreaterThan(SYNC_HEAP_MB);
    expect(Number(limit)).toBeLessThan(SYNC_HEAP_MB * 2);
    expect(JSON.parse(run.stdout) as SyncRow).toMatchObject({ state: 'done', new: site.pages.length, errors: {} });
  });

  it("keeps the user's own --max-old-space-size: the sync runs in the process, as before", { timeout: 180_000 }, async () => {
    const run = await sync('users-heap', { NODE_OPTIONS: '--max-old-space-size=1024' });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toContain('sized_heap');
    expect(JSON.parse(run.stdout) as SyncRow).toMatchObject({ state: 'done', new: site.pages.length });
  });
});
