import { intFlag, parseCommandArgs, requirePositional, UsageError, walkOptionsFrom } from '../args.js';
import { LineWriter } from '../output.js';
import { progressWanted } from '../progress.js';
import { createJob, getJobStatus, readJobShard, runSlice } from '../../lib/factory/jobs/index.js';
import type { NetPolicyInput } from '../../lib/factory/limits.js';
import type { JobStatus } from '../../lib/factory/types.js';
import type { JobStore } from '../../lib/store/job-store.js';
import { assertJobId } from '../../lib/store/job-id.js';
import { MemoryJobStore } from '../../lib/store/memory-job-store.js';
import { connectRedisJobStore, createUpstashJobStore, openJobStore } from '../../lib/store/open-job-store.js';

const JOB_FLAGS = {
  store: { type: 'string' },
  resume: { type: 'string' },
  budget: { type: 'string' },
  urls: { type: 'boolean', default: false },
} as const;

/** Opens the store named by --store (memory, redis://..., upstash), else the one the environment names. */
async function openStore(spec: string | undefined): Promise<JobStore> {
  if (spec === undefined) return openJobStore(process.env);
  if (spec === 'memory') return new MemoryJobStore();
  if (/^rediss?:\/\//.test(spec)) return connectRedisJobStore(spec);
  if (spec === 'upstash') {
    const { UPSTASH_REDIS_REST_URL: url, UPSTASH_REDIS_REST_TOKEN: token } = process.env;
    if (!url || !token) throw new UsageError('--store upstash needs UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN');
    return createUpstashJobStore({ url, token });
  }
  throw new UsageError(`--store takes memory, redis://host:port or upstash, not "${spec}"`);
}

/** `[#####.....] 12/30 sitemaps · 12,000 urls · 12 shards` on stderr. */
function drawProgress(status: JobStatus): void {
  const total = status.sitemapsDone + status.sitemapsPending;
  const filled = total === 0 ? 0 : Math.round((20 * status.sitemapsDone) / total);
  const bar = `${'#'.repeat(filled)}${'.'.repeat(20 - filled)}`;
  const line = `[${bar}] ${status.sitemapsDone}/${total} sitemaps · ${status.urlsFound.toLocaleString('en')} urls · ${status.shardsWritten} shards · ${status.state}`;
  process.stderr.write(`\r\x1b[2K${line}`);
}

/** Runs slices until the job leaves `running`, redrawing progress from the store twice a second. */
async function runToEnd(store: JobStore, jobId: string, options: { budgetMs: number; progress: boolean; net: NetPolicyInput }): Promise<JobStatus> {
  const timer = options.progress ? setInterval(() => void getJobStatus(store, jobId).then(drawProgress, () => undefined), 500) : null;
  try {
    let status = await getJobStatus(store, jobId);
    while (status.state === 'running') status = await runSlice(store, jobId, { budgetMs: options.budgetMs, workerId: 'cli', net: options.net });
    return status;
  } finally {
    if (timer) clearInterval(timer);
  }
}

async function printShards(store: JobStore, status: JobStatus): Promise<void> {
  const writer = new LineWriter();
  for (let shard = 0; shard < status.shardsWritten && !writer.isClosed; shard += 1) {
    await writer.lines((await readJobShard(store, status.jobId, shard))?.urls ?? []);
  }
}

/** `crawler-factory job run <rootUrl>` (or `--resume <jobId>`): a resumable job to completion, over any store. */
export async function jobRunCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, JOB_FLAGS);
  const budgetMs = intFlag('budget', values.budget, 100) ?? 10_000;
  if (values.resume !== undefined && positionals.length > 0) throw new UsageError('give either <rootUrl> or --resume <jobId>, not both');
  if (values.resume !== undefined) assertJobId(values.resume);
  const store = await openStore(values.store);
  try {
    const options = walkOptionsFrom(values);
    const jobId = values.resume ?? (await createJob(store, { rootUrl: requirePositional(positionals, 'rootUrl'), options })).jobId;
    process.stderr.write(`job ${jobId} on the ${store.kind} store${store.kind === 'memory' ? ' (gone when this process ends)' : ''}\n`);
    const progress = progressWanted(values.progress);
    // The network flags of this run apply to every slice, a resumed job's included (jobs never store a policy).
    const status = await runToEnd(store, jobId, { budgetMs, progress, net: options.net ?? {} });
    if (progress) drawProgress(status);
    if (progress) process.stderr.write('\n');
    if (values.urls) await printShards(store, status);
    else process.stdout.write(`${JSON.stringify(status, null, 2)}\n`);
    return status.state === 'failed' ? 1 : 0;
  } finally {
    await store.close();
  }
}
