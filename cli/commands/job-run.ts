import { createJob, getJobStatus, readJobShard, retryStalledJob, runSlice } from '../../lib/factory/jobs/index.js';
import { type NetPolicyInput, type JobStalled, type JobStatus, parseSiteUrl } from '../../lib/index.js';
import { type JobStore, assertJobId, MemoryJobStore, SecretBox, connectRedisJobStore, createUpstashJobStore } from '../../lib/store/index.js';
import { factoryConfig, openConfiguredStore } from '../../lib/service/index.js';
import { sealingSecret, withSealingSecret } from '../folder-secret.js';
import { resolveInput } from '../inputs.js';
import { UsageError, type Io } from '../io.js';
import { intFlag, walkOptionsFrom, type CommonFlags } from '../options.js';
import { LineWriter } from '../output.js';
import { forgetRunSettings, fixedOnResume, loadRunSettings, pickFlags, resumeFlags, saveRunSettings } from '../run-settings.js';
import { stopOnSignals } from '../stop-signals.js';
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
export const MEMORY_STORE_WARNING =
  'warning: in-memory job store: jobs do not survive a restart (use --store redis://HOST:PORT, REDIS_URL or UPSTASH_REDIS_REST_URL)';

/** Opens the store named by --store (memory, redis://..., upstash), else the one the environment names. */
async function openStore(spec: string | undefined, env: NodeJS.ProcessEnv): Promise<JobStore> {
  if (spec === undefined) return openConfiguredStore(await withSealingSecret(factoryConfig(env)));
  if (spec === 'memory') return new MemoryJobStore();
  // A shared store seals a job's headers: with FACTORY_SECRET_KEY, else the folder's own secret.
  const sealing = async () => ({ secrets: new SecretBox(await sealingSecret(factoryConfig(env))) });
  if (/^rediss?:\/\//.test(spec)) return connectRedisJobStore(spec, await sealing());
  if (spec === 'upstash') {
    const { UPSTASH_REDIS_REST_URL: url, UPSTASH_REDIS_REST_TOKEN: token } = env;
    if (!url || !token) throw new UsageError('--store upstash needs UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN');
    return createUpstashJobStore({ url, token }, await sealing());
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
async function runToEnd(
  store: JobStore,
  jobId: string,
  how: { budgetMs: number; progress: boolean; io: Io; signal: AbortSignal; net: NetPolicyInput },
): Promise<JobStatus> {
  const draw = () =>
    void getJobStatus(store, jobId).then(
      (status) => how.io.stderr.write(progressLine(status)),
      () => undefined,
    );
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

/** What `job run` keeps beside a job for `--resume`: what each slice takes from the caller, not from the job. */
const RESUME_SETTINGS = ['allowPrivate', 'allowHost', 'resolve', 'store'] as const;

/** The job's own settings: stored with it when it is created, so they are kept on a resume and cannot change there. */
const JOB_SETTINGS = [
  'timeout',
  'concurrency',
  'maxDepth',
  'maxUrls',
  'userAgent',
  'header',
  'cookie',
  'proxy',
  'rate',
  'retries',
  'include',
  'exclude',
  'pathPrefix',
  'locale',
  'since',
  'requireLastmod',
  'scope',
] as const;

/** The job keeps these itself: not written to disk again (a cookie or a token header is a secret). */
const JOB_SECRETS = new Set<string>(['header', 'cookie', 'proxy']);

/** The flags this run goes with: as given, or (a resume) the run's stored ones overridden by those given again. */
async function effectiveFlags(given: JobRunFlags, io: Io): Promise<JobRunFlags> {
  if (given.resume === undefined) return given;
  const stored = await loadRunSettings(given.resume);
  const { flags, notes } = resumeFlags(given, stored, RESUME_SETTINGS, given.resume);
  if (!given.quiet) for (const note of [...notes, ...fixedOnResume(given, stored, JOB_SETTINGS, `job ${given.resume}`)]) io.stderr.write(`${note}\n`);
  return flags;
}

/** `continue with --resume ID` and what the environment must still say (REDIS_URL...), never a secret. */
function resumeHint(jobId: string, flags: JobRunFlags, store: JobStore): string {
  const fromEnv =
    flags.store === undefined && store.kind !== 'memory' ? ` (with ${store.kind === 'redis' ? 'REDIS_URL' : 'UPSTASH_REDIS_REST_URL/TOKEN'} set as now)` : '';
  return `continue with --resume ${jobId}${fromEnv}`;
}

// Refused as an argument (exit 2) before the job exists: no host written, or a single-label name not opened.
function checkedRoot(raw: string, net: NetPolicyInput, io: Io, quiet: boolean | undefined): string {
  const url = resolveInput(raw, io, quiet).url;
  parseSiteUrl(url, net);
  return url;
}

/** `crawler-factory job run <rootUrl>` (or `--resume <jobId>`): a resumable job to completion, over any store. */
export async function jobRunCommand([raw]: Array<string | undefined>, given: JobRunFlags, io: Io): Promise<number> {
  const budgetMs = intFlag('budget', given.budget, MIN_BUDGET_MS, 900_000) ?? 10_000;
  if (given.resume !== undefined && raw !== undefined) throw new UsageError('give either <rootUrl> or --resume <jobId>, not both');
  if (given.resume === undefined && raw === undefined) throw new UsageError('expected a <rootUrl> or --resume <jobId>');
  if (given.resume !== undefined) assertJobId(given.resume);
  if (given.retryStalled && given.resume === undefined) throw new UsageError('--retry-stalled needs --resume <jobId>');
  const flags = await effectiveFlags(given, io);
  const options = walkOptionsFrom(flags, io.env);
  const rootUrl = raw === undefined ? undefined : checkedRoot(raw, options.net ?? {}, io, flags.quiet);
  const store = await openStore(flags.store, io.env);
  const signals = stopOnSignals();
  try {
    if (store.kind === 'memory') io.stderr.write(`${MEMORY_STORE_WARNING}\n`);
    const previous = flags.previous === undefined ? {} : { previousJobId: assertJobId(flags.previous) };
    const jobId = flags.resume ?? (await createJob(store, { rootUrl: rootUrl ?? '', options, ...previous })).jobId;
    if (flags.resume === undefined && store.kind !== 'memory')
      await saveRunSettings({
        command: 'job run',
        id: jobId,
        flags: pickFlags(flags, [...RESUME_SETTINGS, ...JOB_SETTINGS.filter((key) => !JOB_SECRETS.has(key))]),
      });
    if (!flags.quiet) io.stderr.write(`job ${jobId} on the ${store.kind} store\n`);
    if (flags.retryStalled) await retryStalledJob(store, jobId);
    const progress = (flags.progress || io.stderrIsTTY) && !flags.quiet;
    // The network flags of this run apply to every slice, a resumed job's included (jobs never store a policy).
    const status = await runToEnd(store, jobId, { budgetMs, progress, io, signal: signals.signal, net: options.net ?? {} });
    if (progress) io.stderr.write(`${progressLine(status)}\n`);
    if (signals.signal.aborted && !flags.quiet) io.stderr.write(`stopped: progress committed; ${resumeHint(jobId, flags, store)}\n`);
    if (status.state !== 'running') await forgetRunSettings(jobId);
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
