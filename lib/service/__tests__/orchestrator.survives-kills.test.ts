// scripts/orchestrate.ts drives a job through `crawler-factory serve` on a real Redis while the server process is
// SIGKILLed mid-slice and restarted on the same port; the shards still hold every URL of the site exactly once.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { freePort, startTestRedis, type TestRedis } from '../../../test/helpers/redis-server.js';
import { startLoopbackServer } from '../../demo/loopback-server.js';
import { createJob } from '../../factory/jobs/create-job.js';
import { MAX_CLAIMS_WITHOUT_PROGRESS } from '../../factory/jobs/stall-policy.js';
import { urlsetOf } from '../../factory/jobs/__tests__/small-sites.js';
import { claimAndAbandon } from '../../store/__tests__/store-fixtures.js';
import { connectRedisJobStore } from '../../store/open-job-store.js';
import { demoGroundTruth, expectExactlyOnce, openRedisProbe, startSlowDemoSite, type SlowDemoSite } from './http-fixtures.js';
import { startServe, type ServeProcess } from './serve-process.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
// Each sitemap answer waits this long, so the job spans several slices and the kills land while it runs.
const SITE_DELAY_MS = 400;
// Longer than one sitemap request, so every slice gets work done.
const BUDGET_MS = 1_000;

const SummarySchema = z.object({
  jobId: z.string(),
  state: z.string(),
  urls: z.number(),
  urlsFound: z.number(),
  shards: z.number(),
  calls: z.number(),
  retries: z.number(),
  errors: z.number(),
  stalled: z.object({ url: z.string(), reason: z.string() }).nullable(),
  elapsedMs: z.number(),
});

/** The orchestrator as a child process, with its progress lines as they arrive. */
interface Orchestrator {
  child: ChildProcess;
  lines: string[];
  stdout(): string;
}

function startOrchestrator(args: string[]): Orchestrator {
  const child = spawn(process.execPath, [join(ROOT, 'bin/run-ts.mjs'), join(ROOT, 'scripts/orchestrate.ts'), ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let stdout = '';
  let partial = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => {
    const text = partial + chunk.toString();
    const parts = text.split('\n');
    partial = parts.pop() ?? '';
    lines.push(...parts);
  });
  return { child, lines, stdout: () => stdout };
}

/** Waits for a progress line (the start's or a call's) after index `from` saying the job still runs with at least `minUrls`. */
async function nextRunningCall(orchestrator: Orchestrator, from: number, minUrls: number): Promise<number> {
  const running = (line: string) => /^(call \d+|job \S+): running · ([\d,]+) urls/.exec(line);
  for (let waited = 0; waited < 30_000; waited += 25) {
    const index = orchestrator.lines.findIndex((line, i) => i >= from && Number(running(line)?.[2]?.replaceAll(',', '') ?? -1) >= minUrls);
    if (index >= 0) return index;
    if (orchestrator.child.exitCode !== null) break;
    await sleep(25);
  }
  throw new Error(`no running call after line ${from}:\n${orchestrator.lines.join('\n')}`);
}

describe('the orchestrator against a serve that is killed and restarted', () => {
  let redis: TestRedis;
  let site: SlowDemoSite;
  let truth: Set<string>;
  let serve: ServeProcess | null = null;
  let dir: string;

  beforeAll(async () => {
    [redis, site, dir] = await Promise.all([startTestRedis(), startSlowDemoSite(0.1), mkdtemp(join(tmpdir(), 'cf-orchestrate-'))]);
    truth = await demoGroundTruth(site);
    site.setDelay(SITE_DELAY_MS);
  });
  afterAll(async () => {
    await serve?.stop('SIGKILL');
    await Promise.all([redis?.stop(), site?.close(), dir ? rm(dir, { recursive: true, force: true }) : undefined]);
  });

  it('finishes the job after two SIGKILLs mid-slice, with every URL once across the shards', { timeout: 240_000 }, async () => {
    const port = await freePort();
    const env = { REDIS_URL: redis.url, FACTORY_ALLOW_HOSTS: `127.0.0.1:${site.port}` };
    serve = await startServe({ port, env });
    const out = join(dir, 'urls.txt');
    const orchestrator = startOrchestrator(['--api', serve.origin, '--root', site.rootUrl, '--budget-ms', String(BUDGET_MS), '--out', out]);
    const exited = once(orchestrator.child, 'exit');

    // The first kill lands while the indexes are being read, the second while leaves are being sharded.
    let seen = 0;
    for (const minUrls of [0, 400]) {
      seen = (await nextRunningCall(orchestrator, seen, minUrls)) + 1;
      await sleep(200); // the next slice is in flight now
      expect(await serve.stop('SIGKILL')).toBeNull();
      await sleep(300); // the orchestrator meets a dead port and backs off
      serve = await startServe({ port, env });
      seen = orchestrator.lines.length;
    }

    const [code] = (await exited) as [number | null];
    const summary = SummarySchema.parse(JSON.parse(orchestrator.stdout().trim()));
    expect(code, orchestrator.lines.join('\n')).toBe(0);
    expect(summary).toMatchObject({ state: 'done', urls: truth.size, urlsFound: truth.size, errors: site.expectation.all.failures.length });
    expect(summary.retries).toBeGreaterThanOrEqual(2);
    expect(orchestrator.lines.some((line) => line.startsWith('retry continue'))).toBe(true);
    const urls = (await readFile(out, 'utf8')).split('\n').filter(Boolean);
    expectExactlyOnce(urls, truth);

    const probe = await openRedisProbe(redis.url);
    const shardKeys = (await probe.keys()).filter((key) => key.startsWith(`cf:job:{${summary.jobId}}:shard:`));
    await probe.close();
    expect(shardKeys.length).toBe(summary.shards);
  });

  it(
    'finishes after ten SIGKILLs with 300 ms slices on a busy machine: a pass cut or killed is retried, never the end of the job',
    { timeout: 300_000 },
    async () => {
      // A core spinning beside the server, the orchestrator and the site: the passes are slow, and killed mid-read.
      const burners = Array.from({ length: 1 }, () => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
      const port = await freePort();
      const env = { REDIS_URL: redis.url, FACTORY_ALLOW_HOSTS: `127.0.0.1:${site.port}` };
      site.setDelay(100);
      try {
        serve = await startServe({ port, env });
        const out = join(dir, 'urls-loaded.txt');
        const orchestrator = startOrchestrator(['--api', serve.origin, '--root', site.rootUrl, '--budget-ms', '300', '--out', out]);
        const exited = once(orchestrator.child, 'exit');
        let seen = 0;
        for (let kill = 0; kill < 10 && orchestrator.child.exitCode === null; kill += 1) {
          seen = (await nextRunningCall(orchestrator, seen, 0)) + 1;
          await sleep(150); // the next slice is in flight now
          await serve.stop('SIGKILL');
          serve = await startServe({ port, env });
          seen = orchestrator.lines.length;
        }
        const [code] = (await exited) as [number | null];
        const summary = SummarySchema.parse(JSON.parse(orchestrator.stdout().trim()));
        expect(code, orchestrator.lines.slice(-20).join('\n')).toBe(0);
        expect(summary).toMatchObject({ state: 'done', stalled: null, urls: truth.size, urlsFound: truth.size });
        expectExactlyOnce((await readFile(out, 'utf8')).split('\n').filter(Boolean), truth);
      } finally {
        for (const burner of burners) burner.kill('SIGKILL');
        site.setDelay(SITE_DELAY_MS);
      }
    },
  );

  it('says why a job failed: exit 1, the JSON line, and each reported error kind and message on stderr', { timeout: 120_000 }, async () => {
    const empty = await startLoopbackServer(() => null); // no robots.txt, no sitemap anywhere
    const port = await freePort();
    const failing = await startServe({ port, env: { REDIS_URL: redis.url, FACTORY_ALLOW_HOSTS: `127.0.0.1:${empty.port}` } });
    try {
      const orchestrator = startOrchestrator(['--api', failing.origin, '--root', `${empty.origin}/`, '--budget-ms', String(BUDGET_MS)]);
      const [code] = (await once(orchestrator.child, 'exit')) as [number | null];
      expect(code).toBe(1);
      expect(SummarySchema.parse(JSON.parse(orchestrator.stdout().trim()))).toMatchObject({ state: 'failed', urls: 0 });
      expect(orchestrator.lines).toContain('orchestrate: job ended failed:');
      expect(orchestrator.lines.some((line) => line.startsWith('  not_sitemap: '))).toBe(true);
    } finally {
      await failing.stop('SIGKILL');
      await empty.close();
    }
  });

  it('retries a stalled job with a longer budget, and it ends done with the stalled sitemap read', { timeout: 120_000 }, async () => {
    const sitemaps = await startLoopbackServer((request) => (request.url === '/ok.xml' ? { body: urlsetOf(sitemaps.origin, 'ok', 20) } : null));
    const store = await connectRedisJobStore(redis.url);
    const stuck = `${sitemaps.origin}/stuck.xml`;
    const { jobId } = await createJob(store, { sitemapUrls: [stuck, `${sitemaps.origin}/ok.xml`], options: { net: { allowPrivate: true } } });
    // Earlier workers were killed on it before they committed anything, as often as the stall policy allows.
    await claimAndAbandon(store, jobId, MAX_CLAIMS_WITHOUT_PROGRESS);
    await store.close();
    const port = await freePort();
    const stalling = await startServe({ port, env: { REDIS_URL: redis.url, FACTORY_ALLOW_HOSTS: `127.0.0.1:${sitemaps.port}` } });
    try {
      const orchestrator = startOrchestrator(['--api', stalling.origin, '--job', jobId, '--budget-ms', String(BUDGET_MS)]);
      const [code] = (await once(orchestrator.child, 'exit')) as [number | null];
      expect(code, orchestrator.lines.join('\n')).toBe(0);
      expect(orchestrator.lines).toContain(`stalled on ${stuck}: retry 1 of 3 with a ${2 * BUDGET_MS} ms budget`);
      // The site answers it with a 404 now: read once, reported, and the job ends.
      const summary = SummarySchema.parse(JSON.parse(orchestrator.stdout().trim()));
      expect(summary).toMatchObject({ state: 'done', urls: 20, stalled: null, errors: 1 });
      expect(sitemaps.hits('/stuck.xml')).toBe(1);
    } finally {
      await stalling.stop('SIGKILL');
      await sitemaps.close();
    }
  });
});
