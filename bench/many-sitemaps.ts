/**
 * Per-sitemap overhead: one index of `--children` (default 50,000) children that each answer with one URL, served
 * from a loopback server in a child process, read with the default options (8 sitemaps in flight), by `walk` and by
 * a job on Redis (REDIS_URL, default redis://127.0.0.1:6379; a fresh job id is its own key prefix, deleted after).
 * Prints, per mode, the wall time, sitemaps/s, CPU time per sitemap of this process, of the server and (job) of Redis,
 * the URLs found (they must equal the children; the exit code says so) and, for the job, store commands per sitemap
 * (`--json`: one object a line).
 * Run: node bin/run-ts.mjs bench/many-sitemaps.ts [--children 50000] [--mode walk|job|both] [--json]
 *      (node --cpu-prof ... to profile; `npm run bench -- --only many-sitemaps` runs it bundled, with plain node, in both modes)
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { once } from 'node:events';
import type { Readable, Writable } from 'node:stream';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { startLoopbackServer } from '../lib/demo/loopback-server.js';
import { closeAgents } from '../lib/factory/fetch/index.js';
import { createJob, runSlice } from '../lib/factory/jobs/index.js';
import { walkSitemap } from '../lib/factory/sitemap.js';
import { connectNodeRedis } from '../lib/store/node-redis-commands.js';
import { connectRedisJobStore } from '../lib/store/open-job-store.js';
import type { RedisCommands } from '../lib/store/redis-commands.js';
import { positiveIntArg } from './script-args.js';

const XML = { 'content-type': 'application/xml' };
const LOOPBACK = { allowPrivate: true };
const arg = (name: string, fallback: string): string => {
  const at = process.argv.indexOf(name);
  return at === -1 ? fallback : (process.argv[at + 1] ?? fallback);
};
const children = positiveIntArg('--children', 50_000);
const mode = arg('--mode', 'both');
const json = process.argv.includes('--json');

async function serve(): Promise<void> {
  const server = await startLoopbackServer((request) => {
    const path = request.url ?? '/';
    if (path === '/index.xml') {
      const items = Array.from({ length: children }, (_, i) => `<sitemap><loc>${server.origin}/c/${i}.xml</loc></sitemap>`);
      return {
        headers: XML,
        body: `<?xml version="1.0" encoding="UTF-8"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${items.join('')}</sitemapindex>`,
      };
    }
    const match = /^\/c\/(\d+)\.xml$/.exec(path);
    if (match === null) return null;
    return {
      headers: XML,
      body: `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${server.origin}/p/${match[1]}</loc></url></urlset>`,
    };
  });
  process.stdout.write(`${server.origin}\n`);
  // Any line on stdin asks for the server's CPU time so far (µs), so each mode can tell the server's share.
  process.stdin.on('data', () => {
    const { user, system } = process.cpuUsage();
    process.stdout.write(`${user + system}\n`);
  });
}

/** The loopback server's CPU time so far, in µs. */
async function serverCpuUs(child: ChildProcessByStdio<Writable, Readable, null>): Promise<number> {
  const reply = once(child.stdout, 'data') as Promise<[Buffer]>;
  child.stdin.write('\n');
  const [line] = await reply;
  return Number(line.toString().trim());
}

/** CPU time (µs) Redis has used since it started: all its clients', so other users of the server count too. */
async function redisCpuUs(redis: RedisCommands): Promise<number> {
  const info = String(await redis.send(['INFO', 'cpu']));
  const seconds = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? Number.NaN);
  return (seconds('used_cpu_user') + seconds('used_cpu_sys')) * 1e6;
}

interface Run {
  urls: number;
  storeCommandsPerSitemap?: number;
  storeCpuUs?: number;
}

/** One mode's figures; `--json` prints one such object a line (what `npm run bench` reads). */
export interface ManySitemapsResult {
  mode: 'walk' | 'job';
  children: number;
  wallMs: number;
  sitemapsPerSecond: number;
  cpuUsPerSitemap: number;
  /** The loopback server process's CPU per sitemap: it shares the machine's cores with the walker. */
  serverCpuUsPerSitemap: number;
  urls: number;
  storeCommandsPerSitemap: number | null;
  /** Redis's CPU per sitemap during the job (every client of that Redis counts). */
  storeCpuUsPerSitemap: number | null;
  ok: boolean;
  error?: string;
}

async function walkRun(indexUrl: string): Promise<Run> {
  let urls = 0;
  for await (const batch of walkSitemap(indexUrl, { net: LOOPBACK })) urls += batch.length;
  return { urls };
}

// One long slice (a `job run` worker that is never cut short), default concurrency and lease.
async function jobRun(indexUrl: string): Promise<Run> {
  const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const store = await connectRedisJobStore(url);
  const redis = await connectNodeRedis({ url });
  try {
    const { jobId } = await createJob(store, { sitemapUrls: [indexUrl], options: { net: LOOPBACK } });
    store.resetCommandStats();
    const redisBefore = await redisCpuUs(redis);
    let status = await runSlice(store, jobId, { budgetMs: 10 * 60_000, net: LOOPBACK });
    while (!status.done) status = await runSlice(store, jobId, { budgetMs: 10 * 60_000, net: LOOPBACK });
    const storeCpuUs = (await redisCpuUs(redis)) - redisBefore;
    const { total } = store.commandStats();
    await store.deleteJob(jobId);
    return { urls: status.urlsFound, storeCommandsPerSitemap: total / (children + 1), storeCpuUs };
  } finally {
    await Promise.all([store.close(), redis.close()]);
  }
}

async function measure(mode: ManySitemapsResult['mode'], run: () => Promise<Run>, serverCpu: () => Promise<number>): Promise<ManySitemapsResult> {
  const serverBefore = await serverCpu();
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const { urls, storeCommandsPerSitemap = null, storeCpuUs } = await run();
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  const serverCpuUsPerSitemap = ((await serverCpu()) - serverBefore) / children;
  const cpuUsPerSitemap = (cpu.user + cpu.system) / children;
  const storeCpuUsPerSitemap = storeCpuUs === undefined ? null : storeCpuUs / children;
  const sitemapsPerSecond = children / (wallMs / 1000);
  return {
    mode,
    children,
    wallMs,
    sitemapsPerSecond,
    cpuUsPerSitemap,
    serverCpuUsPerSitemap,
    urls,
    storeCommandsPerSitemap,
    storeCpuUsPerSitemap,
    ok: urls === children,
  };
}

function print(result: ManySitemapsResult): void {
  if (json) return void process.stdout.write(`${JSON.stringify(result)}\n`);
  if (result.error !== undefined) return void process.stdout.write(`${result.mode.padEnd(4)} failed: ${result.error}\n`);
  const { mode, wallMs, sitemapsPerSecond, cpuUsPerSitemap, serverCpuUsPerSitemap, urls, storeCommandsPerSitemap, storeCpuUsPerSitemap } = result;
  const commands = storeCommandsPerSitemap === null ? '' : `, ${storeCommandsPerSitemap.toFixed(2)} store commands/sitemap`;
  const storeCpu = storeCpuUsPerSitemap === null ? '' : `, Redis ${storeCpuUsPerSitemap.toFixed(0)}`;
  const rate = Math.round(sitemapsPerSecond).toLocaleString('en-US');
  process.stdout.write(
    `${mode.padEnd(4)} ${children} one-URL children: ${(wallMs / 1000).toFixed(2)} s wall, ${rate} sitemaps/s (${((wallMs * 1000) / children).toFixed(0)} us/sitemap), ` +
      `CPU us/sitemap: walker ${cpuUsPerSitemap.toFixed(0)}, server ${serverCpuUsPerSitemap.toFixed(0)}${storeCpu}; ${urls} URLs${commands}\n`,
  );
}

// A mode that cannot run (no Redis) is reported as failed, and the other one still runs.
async function runMode(mode: ManySitemapsResult['mode'], run: () => Promise<Run>, serverCpu: () => Promise<number>): Promise<ManySitemapsResult> {
  try {
    return await measure(mode, run, serverCpu);
  } catch (error) {
    const base = {
      mode,
      children,
      wallMs: 0,
      sitemapsPerSecond: 0,
      cpuUsPerSitemap: 0,
      serverCpuUsPerSitemap: 0,
      urls: 0,
      storeCommandsPerSitemap: null,
      storeCpuUsPerSitemap: null,
    };
    return { ...base, ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

async function main(): Promise<void> {
  // The server is this very file again, run the way this one runs (TypeScript through tsx, or the bench's bundle).
  const self = fileURLToPath(import.meta.url);
  const run = self.endsWith('.ts') ? ['--import', 'tsx', self] : [self];
  const child = spawn(process.execPath, [...run, '--serve', '--children', String(children)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  try {
    const [line] = (await once(child.stdout, 'data')) as [Buffer];
    const indexUrl = `${line.toString().trim()}/index.xml`;
    const modes = mode === 'both' ? (['walk', 'job'] as const) : [mode === 'job' ? ('job' as const) : ('walk' as const)];
    for (const name of modes) {
      const result = await runMode(
        name,
        () => (name === 'walk' ? walkRun(indexUrl) : jobRun(indexUrl)),
        () => serverCpuUs(child),
      );
      print(result);
      if (!result.ok) process.exitCode = 1;
    }
  } finally {
    child.kill();
    await closeAgents();
  }
}

await (process.argv.includes('--serve') ? serve() : main());
