/**
 * Per-sitemap overhead: one index of `--children` (default 50,000) children that each answer with one URL, served
 * from a loopback server in a child process, read with the default options (8 sitemaps in flight), by `walk` and by
 * a job on Redis (REDIS_URL, default redis://127.0.0.1:6379; a fresh job id is its own key prefix, deleted after).
 * Prints, per mode, the wall time, sitemaps/s, this process's CPU time per sitemap, the URLs found (they must equal
 * the children; the exit code says so) and, for the job, store commands per sitemap (`--json`: one object a line).
 * Run: node bin/run-ts.mjs bench/many-sitemaps.ts [--children 50000] [--mode walk|job|both] [--json]
 *      (node --cpu-prof ... to profile; `npm run bench -- --only many-sitemaps` runs it with both modes)
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { startLoopbackServer } from '../lib/demo/loopback-server.js';
import { closeAgents } from '../lib/factory/fetch/index.js';
import { createJob, runSlice } from '../lib/factory/jobs/index.js';
import { walkSitemap } from '../lib/factory/sitemap.js';
import { connectRedisJobStore } from '../lib/store/open-job-store.js';

const XML = { 'content-type': 'application/xml' };
const LOOPBACK = { allowPrivate: true };
const arg = (name: string, fallback: string): string => {
  const at = process.argv.indexOf(name);
  return at === -1 ? fallback : (process.argv[at + 1] ?? fallback);
};
const children = Number(arg('--children', '50000'));
const mode = arg('--mode', 'both');
const json = process.argv.includes('--json');

async function serve(): Promise<void> {
  const server = await startLoopbackServer((request) => {
    const path = request.url ?? '/';
    if (path === '/index.xml') {
      const items = Array.from({ length: children }, (_, i) => `<sitemap><loc>${server.origin}/c/${i}.xml</loc></sitemap>`);
      return { headers: XML, body: `<?xml version="1.0" encoding="UTF-8"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${items.join('')}</sitemapindex>` };
    }
    const match = /^\/c\/(\d+)\.xml$/.exec(path);
    if (match === null) return null;
    return { headers: XML, body: `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${server.origin}/p/${match[1]}</loc></url></urlset>` };
  });
  process.stdout.write(`${server.origin}\n`);
}

interface Run {
  urls: number;
  storeCommandsPerSitemap?: number;
}

/** One mode's figures; `--json` prints one such object a line (what `npm run bench` reads). */
export interface ManySitemapsResult {
  mode: 'walk' | 'job';
  children: number;
  wallMs: number;
  sitemapsPerSecond: number;
  cpuUsPerSitemap: number;
  urls: number;
  storeCommandsPerSitemap: number | null;
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
  const store = await connectRedisJobStore(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  try {
    const { jobId } = await createJob(store, { sitemapUrls: [indexUrl], options: { net: LOOPBACK } });
    store.resetCommandStats();
    let status = await runSlice(store, jobId, { budgetMs: 10 * 60_000, net: LOOPBACK });
    while (!status.done) status = await runSlice(store, jobId, { budgetMs: 10 * 60_000, net: LOOPBACK });
    const { total } = store.commandStats();
    await store.deleteJob(jobId);
    return { urls: status.urlsFound, storeCommandsPerSitemap: total / (children + 1) };
  } finally {
    await store.close();
  }
}

async function measure(mode: ManySitemapsResult['mode'], run: () => Promise<Run>): Promise<ManySitemapsResult> {
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const { urls, storeCommandsPerSitemap = null } = await run();
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  const cpuUsPerSitemap = (cpu.user + cpu.system) / children;
  return { mode, children, wallMs, sitemapsPerSecond: children / (wallMs / 1000), cpuUsPerSitemap, urls, storeCommandsPerSitemap, ok: urls === children };
}

function print(result: ManySitemapsResult): void {
  if (json) return void process.stdout.write(`${JSON.stringify(result)}\n`);
  if (result.error !== undefined) return void process.stdout.write(`${result.mode.padEnd(4)} failed: ${result.error}\n`);
  const { mode, wallMs, sitemapsPerSecond, cpuUsPerSitemap, urls, storeCommandsPerSitemap } = result;
  const commands = storeCommandsPerSitemap === null ? '' : `, ${storeCommandsPerSitemap.toFixed(2)} store commands/sitemap`;
  const rate = Math.round(sitemapsPerSecond).toLocaleString('en-US');
  process.stdout.write(
    `${mode.padEnd(4)} ${children} one-URL children: ${(wallMs / 1000).toFixed(2)} s wall, ${rate} sitemaps/s (${((wallMs * 1000) / children).toFixed(0)} us/sitemap), CPU ${cpuUsPerSitemap.toFixed(0)} us/sitemap, ${urls} URLs${commands}\n`,
  );
}

// A mode that cannot run (no Redis) is reported as failed, and the other one still runs.
async function runMode(mode: ManySitemapsResult['mode'], run: () => Promise<Run>): Promise<ManySitemapsResult> {
  try {
    return await measure(mode, run);
  } catch (error) {
    const base = { mode, children, wallMs: 0, sitemapsPerSecond: 0, cpuUsPerSitemap: 0, urls: 0, storeCommandsPerSitemap: null };
    return { ...base, ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

async function main(): Promise<void> {
  const child = spawn(process.execPath, [fileURLToPath(new URL('../bin/run-ts.mjs', import.meta.url)), fileURLToPath(import.meta.url), '--serve', '--children', String(children)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const [line] = (await once(child.stdout, 'data')) as [Buffer];
    const indexUrl = `${line.toString().trim()}/index.xml`;
    const modes = mode === 'both' ? (['walk', 'job'] as const) : [mode === 'job' ? ('job' as const) : ('walk' as const)];
    for (const name of modes) {
      const result = await runMode(name, () => (name === 'walk' ? walkRun(indexUrl) : jobRun(indexUrl)));
      print(result);
      if (!result.ok) process.exitCode = 1;
    }
  } finally {
    child.kill();
    await closeAgents();
  }
}

await (process.argv.includes('--serve') ? serve() : main());
