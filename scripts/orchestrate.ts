// The orchestrator loop: start a discovery job through the HTTP API, call discover {jobId} until the job leaves
// `running` (riding out restarts: connection errors and 5xx are retried with backoff), then read every shard.
//
//   node bin/run-ts.mjs scripts/orchestrate.ts --api http://127.0.0.1:3000 --root https://example.com/ \
//     [--token T] [--budget-ms N] [--job <jobId>] [--out urls.txt] [--quiet]
//
// stdout: one JSON summary line {jobId, state, urls, urlsFound, shards, calls, retries, errors, stalled, elapsedMs};
// --out writes every URL of every shard there, one a line, in shard order. Progress goes to stderr.
// Exit 0 when the job is done, 1 when it ended stopped or failed (or the API refused), 2 on a usage error,
// 3 when it stalled (still running, but another call would only loop on the same sitemap: the status says which and why)
// after STALL_RETRIES retries, each with twice the budget.
import { createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { parseArgs } from 'node:util';
import type { JobStatus } from '../lib/core/types.js';
import { DEFAULT_SLICE_BUDGET_MS } from '../lib/service/api-limits.js';
import { DiscoverApiError, DiscoverClient, type RetryEvent } from './discover-client.js';

/** What one run did, printed as the last line. */
interface OrchestrationSummary {
  jobId: string;
  state: JobStatus['state'];
  urls: number;
  urlsFound: number;
  shards: number;
  calls: number;
  retries: number;
  errors: number;
  stalled: JobStatus['stalled'];
  elapsedMs: number;
  /** The job's reported errors: printed on stderr when it did not finish, not part of the JSON line. */
  failures: JobStatus['errors'];
}

interface RunOptions {
  client: DiscoverClient;
  rootUrl: string | null;
  jobId: string | null;
  budgetMs: number | undefined;
  progress: (line: string) => void;
}

const USAGE = 'usage: orchestrate.ts --api URL (--root URL | --job ID) [--token T] [--budget-ms N] [--out FILE] [--quiet]\n';

function describe(status: JobStatus): string {
  return `${status.state} · ${status.urlsFound.toLocaleString('en')} urls · ${status.shardsWritten} shards · ${status.sitemapsDone}/${status.sitemapsDone + status.sitemapsPending} sitemaps`;
}

/**
 * Times a stalled job is retried, each with twice the budget (up to the API's most), before the orchestrator gives
 * up: a pass cut by a short budget on a busy machine, or killed with its server, is not the sitemap's fault.
 */
const STALL_RETRIES = 3;

/**
 * Calls discover until the job is no longer running, retrying a stalled one with a longer budget (STALL_RETRIES
 * times); returns the final status and the number of calls.
 */
async function driveJob(options: RunOptions): Promise<{ status: JobStatus; calls: number }> {
  const { client, progress } = options;
  let budgetMs = options.budgetMs;
  let status = options.jobId ? await client.status(options.jobId) : await client.start({ rootUrl: options.rootUrl ?? '', budgetMs });
  let calls = 1;
  let stallRetries = 0;
  progress(`job ${status.jobId}: ${describe(status)}`);
  while (status.state === 'running' && (status.stalled === null || stallRetries < STALL_RETRIES)) {
    if (status.stalled === null) status = await client.next(status.jobId, budgetMs);
    else {
      stallRetries += 1;
      budgetMs = Math.min(DEFAULT_SLICE_BUDGET_MS, 2 * (budgetMs ?? DEFAULT_SLICE_BUDGET_MS));
      progress(`stalled on ${status.stalled.url}: retry ${stallRetries} of ${STALL_RETRIES} with a ${budgetMs} ms budget`);
      status = await client.retry(status.jobId, budgetMs);
    }
    calls += 1;
    progress(`call ${calls}: ${describe(status)}`);
  }
  return { status, calls };
}

/** Reads every shard in order (each retried like any call), writing the URLs to `out` when given. */
async function readShards(client: DiscoverClient, status: JobStatus, out: WriteStream | null): Promise<number> {
  let urls = 0;
  for (let shard = 0; shard < status.shardsWritten; shard += 1) {
    const batch = await client.shard(status.jobId, shard);
    urls += batch.length;
    if (out && !out.write(batch.map((url) => `${url}\n`).join(''))) await once(out, 'drain');
  }
  return urls;
}

/** Runs the whole loop and returns its summary. */
async function orchestrate(options: RunOptions & { out: WriteStream | null }): Promise<OrchestrationSummary> {
  const startedAt = performance.now();
  const { status, calls } = await driveJob(options);
  const urls = await readShards(options.client, status, options.out);
  const { jobId, state, urlsFound, shardsWritten: shards, errors, stalled } = status;
  const elapsedMs = Math.round(performance.now() - startedAt);
  return { jobId, state, urls, urlsFound, shards, calls, retries: options.client.retries, errors: errors.length, stalled, elapsedMs, failures: errors };
}

/** A job that did not finish says why on stderr: each reported error's kind, URL and message. */
function reportFailedJob(state: string, failures: Array<{ kind: string; url: string | null; message: string }>): void {
  process.stderr.write(`orchestrate: job ended ${state}${failures.length === 0 ? ' (no error reported)' : ':'}\n`);
  for (const failure of failures) process.stderr.write(`  ${failure.kind}: ${failure.message}${failure.url ? ` (${failure.url})` : ''}\n`);
}

/** A stalled job says what it is stuck on and why. */
function reportStalledJob(stalled: NonNullable<JobStatus['stalled']>): void {
  process.stderr.write(`orchestrate: job stalled on ${stalled.url}: ${stalled.reason} (no progress for ${Math.round(stalled.sinceMs / 1000)} s)\n`);
  process.stderr.write('  once the site is fixed, retry it: POST /api/factory/discover {"jobId", "action": "retry"}, then orchestrate --job again\n');
}

/** Exit code of a job that stopped advancing: not done, not failed. */
const STALLED_EXIT_CODE = 3;

const CLI_OPTIONS = {
  api: { type: 'string' },
  root: { type: 'string' },
  job: { type: 'string' },
  token: { type: 'string' },
  'budget-ms': { type: 'string' },
  out: { type: 'string' },
  quiet: { type: 'boolean', default: false },
} as const;

/** The command line, or null when it is not usable (unknown flag, no --api, neither --root nor --job, bad budget). */
function parseCli(argv: string[]) {
  const parsed = (() => {
    try {
      return parseArgs({ args: argv, options: CLI_OPTIONS }).values;
    } catch {
      return null;
    }
  })();
  const budgetMs = parsed?.['budget-ms'] === undefined ? undefined : Number(parsed['budget-ms']);
  if (!parsed?.api || (!parsed.root && !parsed.job)) return null;
  if (budgetMs !== undefined && !(Number.isInteger(budgetMs) && budgetMs > 0)) return null;
  return { ...parsed, api: parsed.api, budgetMs };
}

async function main(argv: string[]): Promise<number> {
  const cli = parseCli(argv);
  if (!cli) return (void process.stderr.write(USAGE), 2);
  const progress = (line: string) => void (cli.quiet || process.stderr.write(`${line}\n`));
  const onRetry = (event: RetryEvent) => progress(`retry ${event.call} #${event.attempt} in ${event.delayMs} ms: ${event.reason}`);
  const client = new DiscoverClient({ api: cli.api, token: cli.token ?? process.env.FACTORY_API_TOKEN ?? null, onRetry });
  const out = cli.out ? createWriteStream(cli.out) : null;
  try {
    const summary = await orchestrate({ client, rootUrl: cli.root ?? null, jobId: cli.job ?? null, budgetMs: cli.budgetMs, progress, out });
    const { failures: _failures, ...line } = summary;
    process.stdout.write(`${JSON.stringify(line)}\n`);
    if (summary.stalled !== null) return (reportStalledJob(summary.stalled), STALLED_EXIT_CODE);
    if (summary.state !== 'done') reportFailedJob(summary.state, summary.failures);
    return summary.state === 'done' ? 0 : 1;
  } finally {
    if (out) await new Promise<void>((done) => out.end(done));
  }
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  const detail = error instanceof DiscoverApiError || error instanceof Error ? error.message : String(error);
  process.stderr.write(`orchestrate: ${detail}\n`);
  process.exitCode = 1;
}
