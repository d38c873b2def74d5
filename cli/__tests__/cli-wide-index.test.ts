// Limits at scale through the built bin, default flags: an index of 60,000 one-URL children keeps 50,000
// (maxChildrenPerIndex) and reports the rest once as too_many_children, in `walk` and in `job run` on Redis and memory.
// Counts only (generous timeouts: a loaded machine may take minutes): the timing goals are bench/wide-index.ts's.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWideIndexSite, type WideIndexSite } from '../../test/sites/wide-index-site.js';
import { connectRedisJobStore } from '../../lib/store/open-job-store.js';
import { startTestRedis, type TestRedis } from '../../test/helpers/redis-server.js';

const BIN = fileURLToPath(new URL('../../dist/cli/bin.js', import.meta.url));
const KEPT = 50_000;

function runBin(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, LOG_LEVEL: 'silent' } });
    const out: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out).toString(), stderr }));
  });
}

let site: WideIndexSite;
let redis: TestRedis;
beforeAll(async () => {
  [site, redis] = await Promise.all([startWideIndexSite(60_000), startTestRedis()]);
});
afterAll(async () => {
  await site?.server.close();
  await redis?.stop();
});

describe('an index of 60,000 one-URL children, default flags', () => {
  it('walk: 50,000 URLs, one too_many_children error for the index', async () => {
    const run = await runBin(['walk', site.server.url('/index.xml'), '--allow-private', '--format', 'ndjson']);
    expect(run.code, run.stderr).toBe(0);
    const events = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; kind?: string; url?: string; loc?: string });
    const urls = new Set(events.filter((event) => event.type === 'url').map((event) => event.loc ?? event.url));
    expect(urls.size).toBe(KEPT);
    expect(urls.has(site.server.url(`/p/${KEPT - 1}`))).toBe(true);
    expect(urls.has(site.server.url(`/p/${KEPT}`))).toBe(false);
    expect(events.filter((event) => event.type === 'error')).toEqual([
      expect.objectContaining({ kind: 'too_many_children', url: site.server.url('/index.xml') }),
    ]);
    expect(site.server.hits(`/c/${KEPT}.xml`)).toBe(0);
  }, 600_000);

  // The same outcome from either store: the finishes a slice batches (finishMany) change nothing the status says.
  it.each(['redis', 'memory'] as const)(
    'job run on the %s store: 50,000 URLs found, one too_many_children error',
    async (kind) => {
      const run = await runBin(['job', 'run', site.server.url('/index.xml'), '--allow-private', '--store', kind === 'redis' ? redis.url : 'memory', '--quiet']);
      expect(run.code, run.stderr).toBe(0);
      const status = JSON.parse(run.stdout) as {
        jobId: string;
        state: string;
        urlsFound: number;
        sitemapsDone: number;
        errors: Array<{ kind: string; url: string | null }>;
      };
      expect(status).toMatchObject({ state: 'done', urlsFound: KEPT, sitemapsDone: KEPT + 1 });
      expect(status.errors).toEqual([expect.objectContaining({ kind: 'too_many_children', url: site.server.url('/index.xml') })]);
      if (kind === 'memory') return;
      const store = await connectRedisJobStore(redis.url);
      await store.deleteJob(status.jobId).finally(() => store.close());
    },
    600_000,
  );
});
