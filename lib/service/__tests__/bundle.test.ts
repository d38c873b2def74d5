// scripts/bundle.mjs: each api/ handler becomes one self-contained ESM file that serves requests from a directory
// with no node_modules anywhere above it, its pino logger synchronous (no worker thread ever started).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startDemoSite, type DemoSite } from '../../demo/demo-site.js';
import { startTestRedis, type TestRedis } from '../../../test/helpers/redis-server.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Runs `node args` in `cwd` with `env`; resolves with exit code and output. */
function runNode(args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: options.cwd, env: { PATH: process.env.PATH, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

// Loaded by a bare `node` in the bundle directory: counts worker threads, serves requests through the bundles,
// and prints one RESULT line on stderr (stdout carries the functions' logs, as on Vercel).
const DRIVER = `
import { createRequire } from 'node:module';
const threads = createRequire(import.meta.url)('node:worker_threads');
let workers = 0;
const Original = threads.Worker;
threads.Worker = class extends Original { constructor(...args) { workers += 1; super(...args); } };

const discover = await import('./api/factory/discover.mjs');
const estimate = await import('./api/factory/estimate.mjs');
const root = process.env.SITE_ROOT;
const post = (path, body) => new Request('http://localhost' + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const answer = async (response) => ({ status: response.status, body: await response.json() });

const results = {};
results.malformed = await answer(await discover.GET(new Request('http://localhost/api/factory/discover?jobId=*')));
results.estimate = await answer(await estimate.POST(post('/api/factory/estimate', { rootUrl: root })));
results.start = await answer(await discover.POST(post('/api/factory/discover', { rootUrl: root, budgetMs: 20000 })));
results.shard = await answer(await discover.GET(new Request('http://localhost/api/factory/discover?jobId=' + results.start.body.jobId + '&shard=0')));
results.workers = workers;
process.stderr.write('RESULT ' + JSON.stringify(results) + '\\n');
process.exit(0);
`;

const Answer = z.object({ status: z.number(), body: z.record(z.string(), z.unknown()) });
const ResultSchema = z.object({ malformed: Answer, estimate: Answer, start: Answer, shard: Answer, workers: z.number() });

describe('scripts/bundle.mjs', () => {
  let dir: string;
  let site: DemoSite;
  let redis: TestRedis;

  beforeAll(async () => {
    [dir, site, redis] = await Promise.all([mkdtemp(join(tmpdir(), 'cf-bundle-')), startDemoSite({ scale: 0.01 }), startTestRedis()]);
  });
  afterAll(async () => {
    await Promise.all([dir ? rm(dir, { recursive: true, force: true }) : undefined, site?.close(), redis?.stop()]);
  });

  it('bundles each handler (no test) into dist-style .mjs files', { timeout: 60_000 }, async () => {
    const run = await runNode([join(ROOT, 'scripts/bundle.mjs'), '--outdir', join(dir, 'api')], { cwd: ROOT });
    expect(run.code, run.stderr).toBe(0);
    const files = (await readdir(join(dir, 'api'), { recursive: true })).filter((file) => file.endsWith('.mjs')).sort();
    expect(files).toEqual([
      'factory/cron.mjs',
      'factory/discover.mjs',
      'factory/estimate.mjs',
      'factory/health.mjs',
      'factory/sites.mjs',
      'factory/slice-failed.mjs',
      'factory/slice.mjs',
    ]);
  });

  it('serves requests from the bundles alone: no node_modules, Redis and pino inside, no worker thread', { timeout: 60_000 }, async () => {
    for (let up = dir; up !== dirname(up); up = dirname(up)) expect(existsSync(join(up, 'node_modules')), up).toBe(false);
    await writeFile(join(dir, 'driver.mjs'), DRIVER);
    const env = { SITE_ROOT: site.rootUrl, FACTORY_ALLOW_HOSTS: `127.0.0.1:${site.port}`, REDIS_URL: redis.url, LOG_LEVEL: 'info' };
    const run = await runNode(['driver.mjs'], { cwd: dir, env });
    const line = run.stderr.split('\n').find((text) => text.startsWith('RESULT '));
    expect(line, run.stderr).toBeDefined();
    const result = ResultSchema.parse(JSON.parse(line?.slice('RESULT '.length) ?? '{}'));
    expect(result.malformed).toEqual({ status: 400, body: { error: { kind: 'bad_request', message: expect.any(String) } } });
    expect(result.estimate).toMatchObject({ status: 200, body: { rootUrl: site.rootUrl } });
    expect(result.start).toMatchObject({ status: 201, body: { state: 'done', urlsFound: site.expectation.all.pageUrls } });
    expect(result.shard.status).toBe(200);
    expect(result.workers).toBe(0);
    // The handlers log JSON lines to stdout, synchronously, from inside the bundle.
    expect(run.stdout).toMatch(/"module":"http:handler".*"status":201/);
  });
});
