/**
 * Many small sitemaps and limits at scale, through the product as users run it: one sitemap index of `--children`
 * one-URL children (default: 50,000, 60,000 and 1,000,000), served as a stream from a loopback server in a child
 * process, read by the built bin (`node dist/cli/bin.js`, default flags) as `walk`, as `job run` on Redis (REDIS_URL,
 * default redis://127.0.0.1:6379) and as `job run --store memory`. Each run is its own process: its wall time,
 * sitemaps read a second, CPU time (utime + stime from /proc), and peak RSS (VmHWM, sampled from /proc) are reported,
 * with the URLs found and the errors it reported (`too_many_children` for the children past maxChildrenPerIndex).
 * Goal: under 40 s and under 256 MiB of RSS growth per run. Results (JSON) go to .tmp/bench/wide-index.json.
 * Run: npm run build && node bin/run-ts.mjs bench/wide-index.ts [--children 50000,60000,1000000]
 *      [--mode walk|job|job-memory|all] [--json]   (or `npm run bench -- --only wide-index`)
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { startWideIndexSite } from '../test/sites/wide-index-site.js';
import { connectRedisJobStore } from '../lib/store/open-job-store.js';
import { WIDE_INDEX_GOALS } from './harness/wide-index.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const BIN = join(root, 'dist', 'cli', 'bin.js');

const arg = (name: string, fallback: string): string => {
  const at = process.argv.indexOf(name);
  return at === -1 ? fallback : (process.argv[at + 1] ?? fallback);
};

/** One run's figures (one JSON object a line with `--json`). */
export interface WideIndexResult {
  /** `job`: on Redis; `job-memory`: on the in-process store. */
  mode: 'walk' | 'job' | 'job-memory';
  children: number;
  wallMs: number;
  /** Child sitemaps read a second (one URL each: the URLs found over the wall time, process start included). */
  sitemapsPerSecond: number;
  /** CPU time of the bin's process (user + system, last /proc sample before it exited), per sitemap read. */
  cpuUsPerSitemap: number;
  /** Peak resident set of the bin's process, and its growth over the first sample (node and the program loaded). */
  peakRssBytes: number;
  rssGrowthBytes: number;
  urls: number;
  /** Errors the run reported, by kind. */
  errors: Record<string, number>;
  exitCode: number | null;
  ok: boolean;
  note?: string;
}

async function serve(children: number): Promise<void> {
  const site = await startWideIndexSite(children);
  process.stdout.write(`${site.server.origin}\n`);
}

// Clock ticks a second of /proc/<pid>/stat's utime and stime (USER_HZ: 100 on Linux).
const TICKS_PER_SECOND = 100;

// VmHWM (peak RSS) and VmRSS of a live process, in bytes, and its CPU time so far (µs); null once it is gone.
async function sampleOf(pid: number): Promise<{ peak: number; now: number; cpuUs: number } | null> {
  try {
    const [status, stat] = await Promise.all([readFile(`/proc/${pid}/status`, 'utf8'), readFile(`/proc/${pid}/stat`, 'utf8')]);
    const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
    // Fields after the command name (which may hold spaces): state is field 3, utime 14 and stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const cpuUs = ((Number(fields[11]) + Number(fields[12])) * 1e6) / TICKS_PER_SECOND;
    return { peak: kib('VmHWM'), now: kib('VmRSS'), cpuUs };
  } catch {
    return null;
  }
}

/** Runs the bin once, counting its stdout lines and its stderr `error` kinds, sampling its memory until it exits. */
async function runBin(mode: WideIndexResult['mode'], children: number, indexUrl: string): Promise<WideIndexResult> {
  const redis = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const store = mode === 'job' ? redis : 'memory';
  const args =
    mode === 'walk' ? ['walk', indexUrl, '--allow-private', '--format', 'ndjson'] : ['job', 'run', indexUrl, '--allow-private', '--store', store, '--quiet'];
  const started = performance.now();
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, LOG_LEVEL: 'silent' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let urls = 0;
  const errors: Record<string, number> = {};
  let partial = '';
  let status = '';
  child.stdout.on('data', (chunk: Buffer) => {
    // A job prints its final status (JSON): URLs found and errors are read from it.
    if (mode !== 'walk') return void (status += chunk.toString());
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      if (line.startsWith('{"type":"url"')) urls += 1;
      else if (line.startsWith('{"type":"error"')) {
        const kind = (JSON.parse(line) as { kind: string }).kind;
        errors[kind] = (errors[kind] ?? 0) + 1;
      }
    }
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4_000)));
  let first: number | null = null;
  let peak = 0;
  let cpuUs = 0;
  const sampler = setInterval(() => {
    void sampleOf(child.pid ?? -1).then((sample) => {
      if (sample === null) return;
      first ??= sample.now;
      peak = Math.max(peak, sample.peak);
      cpuUs = Math.max(cpuUs, sample.cpuUs);
    });
  }, 50);
  const [exitCode] = (await once(child, 'close')) as [number | null];
  clearInterval(sampler);
  const wallMs = performance.now() - started;
  if (mode !== 'walk' && exitCode === 0) urls = await readJobStatus(status, errors, mode === 'job' ? redis : null);
  const growth = peak - (first ?? 0);
  const ok = exitCode === 0 && wallMs < WIDE_INDEX_GOALS.wallMs && growth < WIDE_INDEX_GOALS.rssGrowthBytes;
  return {
    mode,
    children,
    wallMs,
    sitemapsPerSecond: urls / (wallMs / 1000),
    cpuUsPerSitemap: urls === 0 ? 0 : cpuUs / urls,
    peakRssBytes: peak,
    rssGrowthBytes: growth,
    urls,
    errors,
    exitCode,
    ok,
    ...(exitCode === 0 ? {} : { note: stderr.trim().split('\n').slice(-3).join(' | ') }),
  };
}

// The job's final status: its URLs found, its errors counted by kind into `errors`; a Redis job's keys are then deleted.
async function readJobStatus(text: string, errors: Record<string, number>, redis: string | null): Promise<number> {
  const status = JSON.parse(text) as { jobId: string; urlsFound: number; errors: Array<{ kind: string }> };
  for (const { kind } of status.errors) errors[kind] = (errors[kind] ?? 0) + 1;
  if (redis === null) return status.urlsFound;
  const store = await connectRedisJobStore(redis);
  try {
    await store.deleteJob(status.jobId);
  } finally {
    await store.close();
  }
  return status.urlsFound;
}

function mib(bytes: number): string {
  return (bytes / 1048576).toFixed(0);
}

function print(result: WideIndexResult): void {
  if (process.argv.includes('--json')) return void process.stdout.write(`${JSON.stringify(result)}\n`);
  const errors =
    Object.entries(result.errors)
      .map(([kind, count]) => `${kind} x${count}`)
      .join(', ') || 'none';
  process.stdout.write(
    `${result.mode.padEnd(10)} ${result.children.toLocaleString('en-US')} children: ${(result.wallMs / 1000).toFixed(1)} s wall, ` +
      `${Math.round(result.sitemapsPerSecond).toLocaleString('en-US')} sitemaps/s, CPU ${result.cpuUsPerSitemap.toFixed(0)} us/sitemap, peak RSS ${mib(result.peakRssBytes)} MiB ` +
      `(+${mib(result.rssGrowthBytes)}), ${result.urls.toLocaleString('en-US')} URLs, errors: ${errors}, exit ${result.exitCode}${result.ok ? '' : ' GOAL MISSED'}${result.note ? ` (${result.note})` : ''}\n`,
  );
}

async function main(): Promise<void> {
  const sizes = arg('--children', '50000,60000,1000000').split(',').map(Number);
  const mode = arg('--mode', 'all');
  const all = ['walk', 'job', 'job-memory'] as const;
  const modes = mode === 'all' ? all : all.filter((name) => name === mode);
  if (modes.length === 0) throw new Error(`--mode takes walk, job, job-memory or all, not ${mode}`);
  const results: WideIndexResult[] = [];
  const self = fileURLToPath(import.meta.url);
  for (const children of sizes) {
    if (!Number.isInteger(children) || children < 1) throw new Error(`--children takes positive whole numbers, not ${arg('--children', '')}`);
    const server = spawn(process.execPath, [...(self.endsWith('.ts') ? ['--import', 'tsx'] : []), self, '--serve', '--children', String(children)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const [line] = (await once(server.stdout, 'data')) as [Buffer];
      const indexUrl = `${line.toString().trim()}/index.xml`;
      for (const name of modes) {
        const result = await runBin(name, children, indexUrl);
        print(result);
        results.push(result);
        if (!result.ok) process.exitCode = 1;
      }
    } finally {
      server.kill();
    }
  }
  const out = join(root, '.tmp', 'bench', 'wide-index.json');
  await mkdir(dirname(out), { recursive: true });
  await writeFile(out, `${JSON.stringify({ generatedAt: new Date().toISOString(), goals: WIDE_INDEX_GOALS, results }, null, 2)}\n`);
  process.stderr.write(`[bench] wrote ${out}\n`);
}

await (process.argv.includes('--serve') ? serve(Number(arg('--children', '60000'))) : main());
