import { createJob, getJobStatus, readJobShard, retryStalledJob, runSlice } from '../../lib/factory/jobs/index.js';
import type { NetPolicyInput } from '../../lib/factory/limits.js';
import type { JobStalled, JobStatus } from '../../lib/factory/types.js';
import type { JobStore } from '../../lib/store/job-store.js';
import { assertJobId } from '../../lib/store/job-id.js';
import { MemoryJobStore } from '../../lib/store/memory-job-store.js';
import { connectRedisJobStore, createUpstashJobStore, openJobStore } from '../../lib/store/open-job-store.js';
import { resolveInput } from '../inputs.js';
import { parseSiteUrl } from '../../lib/factory/url/site-url.js';
import { UsageError, type Io } from '../io.js';
import { intFlag, walkOptionsFrom, type CommonFlags } from '../options.js';
import { LineWriter } from '../output.js';
import { MIN_BUDGET_MS } from './estimate.js';

/** The flags of `job run`. */
export interface JobRunFlags extends CommonFlags {
  store?: string;
  resume?: string;
  previous?: string;
  retryStalled?: boolean;
  budget?: string;
  urls?: boolean;
}

/** Exit code of a job that stopped advancing (`stalled` in its status): not done, not failed, needs a look. */
export const STALLED_EXIT_CODE = 3;

/** The warning for a store that forgets: printed on stderr whatever the verbosity. */
export const MEMORY_STORE_WARNING = 'warning: in-memory job store: jobs do not survive a restart (use --store redis://HOST:PORT, REDIS_URL or UPSTASH_REDIS_REST_URL)';

/** Opens the store named by --store (memory, redis://..., upstash), else the one the environment names. */
async function openStore(spec: string | undefined, env: NodeJS.ProcessEnv): Promise<JobStore> {
  if (spec === undefined) return openJobStore(env);
  if (spec === 'memory') return new MemoryJobStore();
  if (/^rediss?:\/\//.test(spec)) return connectRedisJobStore(spec);
  if (spec === 'upstash') {
    const { UPSTASH_REDIS_REST_URL: url, UPSTASH_REDIS_REST_TOKEN: token } = env;
    if (!url || !token) throw new UsageError('--store upstash needs UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN');
    return createUpstashJobStore({ url, token });
  }
  throw new UsageError(`--store takes memory, redis://host:port or upstash, not "${spec}"`);
}

/** `[#####.....] 12/30 sitemaps · 12,000 urls · 12 shards` on stderr. */
function progressLine(status: JobStatus): string {
  const total = status.sitemapsDone + status.sitemapsPending;
  const filled = total === 0 ? 0 : Math.round((20 * status.sitemapsDone) / total);
  const bar = `${'#'.repeat(filled)}${'.'.repeat(20 - filled)}`;
  return `\r\x1b[2K[${bar}] ${status.sitemapsDone}/${total} sitemaps · ${status.urlsFound.toLocaleString('en')} urls · ${status.shardsWritten} shards · ${status.state}`;
}

/**
 * Runs slices until the job leaves `running`, stalls (another slice would loop on the same work), or a signal stops
 * it (the slice then commits what it read and releases its leases).
 */
async function runToEnd(store: JobStore, jobId: string, how: { budgetMs: number; progress: boolean; io: Io; signal: AbortSignal; net: NetPolicyInput }): Promise<JobStatus> {
  const draw = () => void getJobStatus(store, jobId).then((status) => how.io.stderr.write(progressLine(status)), () => undefined);
  const timer = how.progress ? setInterval(draw, 500) : null;
  try {
    let status = await getJobStatus(store, jobId);
    while (status.state === 'running' && !how.signal.aborted) {
      status = await runSlice(store, jobId, { budgetMs: how.budgetMs, workerId: 'cli', signal: how.signal, net: how.net });
      if (status.stalled !== null) break;
    }
    return status;
  } finally {
    if (timer) clearInterval(timer);
  }
}

/** Says why a job cannot advance, whatever the verbosity: what it is stuck on, for how long, and that nothing found is lost. */
function stalledLine(stalled: JobStalled, jobId: string): string {
  const idle = Math.round(stalled.sinceMs / 1000);
  return `job ${jobId} stalled on ${stalled.url}: ${stalled.reason} (no progress for ${idle} s); the URLs found so far are in its shards; once the site is fixed: --resume ${jobId} --retry-stalled\n`;
}

async function printShards(store: JobStore, status: JobStatus, io: Io): Promise<void> {
  const writer = new LineWriter(io.stdout);
  for (let shard = 0; shard < status.shardsWritten && !writer.isClosed; shard += 1) {
    await writer.lines((await readJobShard(store, status.jobId, shard))?.urls ?? []);
  }
}

// Refused as an argument (exit 2) before the job exists: no host written, or a single-label name not opened.
function checkedRoot(raw: string, net: NetPolicyInput, io: Io, quiet: boolean | undefined): string {
  const url = resolveInput(raw, io, quiet).url;
  parseSiteUrl(url, net);
  return url;
}

/** Aborts on SIGINT/SIGTERM; returns the signal and the cleanup. */
function stopOnSignals(): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  const stop = () => controller.abort(new Error('stopped by signal'));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  return { signal: controller.signal, dispose: () => (process.off('SIGINT', stop), process.off('SIGTERM', stop)) };
}

/** `crawler-factory job run <rootUrl>` (or `--resume <jobId>`): a resumable job to completion, over any store. */
export async function jobRunCommand([raw]: Array<string | undefined>, flags: JobRunFlags, io: Io): Promise<number> {
  const budgetMs = intFlag('budget', flags.budget, MIN_BUDGET_MS, 900_000) ?? 10_000;
  if (flags.resume !== undefined && raw !== undefined) throw new UsageError('give either <rootUrl> or --resume <jobId>, not both');
  if (flags.resume === undefined && raw === undefined) throw new UsageError('expected a <rootUrl> or --resume <jobId>');
  if (flags.resume !== undefined) assertJobId(flags.resume);
  if (flags.retryStalled && flags.resume === undefined) throw new UsageError('--retry-stalled needs --resume <jobId>');
  const options = walkOptionsFrom(flags, io.env);
  const rootUrl = raw === undefined ? undefined : checkedRoot(raw, options.net ?? {}, io, flags.quiet);
  const store = await openStore(flags.store, io.env);
  const signals = stopOnSignals();
  try {
    if (store.kind === 'memory') io.stderr.write(`${MEMORY_STORE_WARNING}\n`);
    const previous = flags.previous === undefined ? {} : { previousJobId: assertJobId(flags.previous) };
    const jobId = flags.resume ?? (await createJob(store, { rootUrl: rootUrl ?? '', options, ...previous })).jobId;
    if (!flags.quiet) io.stderr.write(`job ${jobId} on the ${store.kind} store\n`);
    if (flags.retryStalled) await retryStalledJob(store, jobId);
    const progress = (flags.progress || io.stderrIsTTY) && !flags.quiet;
    // The network flags of this run apply to every slice, a resumed job's included (jobs never store a policy).
    const status = await runToEnd(store, jobId, { budgetMs, progress, io, signal: signals.signal, net: options.net ?? {} });
    if (progress) io.stderr.write(`${progressLine(status)}\n`);
    if (signals.signal.aborted && !flags.quiet) io.stderr.write(`stopped: progress committed; continue with --resume ${jobId}\n`);
    if (status.stalled !== null) io.stderr.write(stalledLine(status.stalled, jobId));
    if (flags.urls) await printShards(store, status, io);
    else io.stdout.write(`${JSON.stringify(status, null, 2)}\n`);
    if (status.stalled !== null) return STALLED_EXIT_CODE;
    return status.state === 'failed' ? 1 : 0;
  } finally {
    signals.dispose();
    await store.close();
  }
}
