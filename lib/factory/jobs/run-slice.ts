import { setMaxListeners } from 'node:events';
import { z } from 'zod';
import type { JobStore } from '../../store/job-store.js';
import { createLogger } from '../../utils/logger.js';
import { RequestError } from '../../core/errors.js';
import { NetPolicySchema, type NetPolicyInput } from '../../core/limits.js';
import type { JobStatus } from '../../core/types.js';
import { FinishBatch } from './finish-batch.js';
import { getJobStatus } from './job-control.js';
import { LeaseKeeper } from './lease-heartbeat.js';
import { defaultReserveMs, SliceClock } from './slice-clock.js';
import { ReadSlots, workLoopsFor } from './read-slots.js';
import { haltSlice, type SliceContext } from './slice-context.js';
import { Wakeup } from './wakeup.js';
import { workLoop } from './work-loop.js';

const log = createLogger('factory:jobs');

/** Options of one time-boxed slice of a job. */
export interface RunSliceOptions {
  /** Wall-clock budget: the slice saves and returns before it runs out. */
  budgetMs: number;
  /**
   * The deployment's network policy (private targets, allowed hosts, resolves), read from the caller's configuration
   * for every slice: never stored in, or taken from, the job. Default: public targets only.
   */
  net?: NetPolicyInput;
  /** Aborts the slice early (the platform is shutting the function down); the slice still saves what it can. */
  signal?: AbortSignal;
  /** Names this worker in logs. */
  workerId?: string;
  /**
   * Work in flight (a sitemap being read, discovery) may run past the budget up to this many ms from the slice's
   * start: the deployment's hard limit (on Vercel, maxDuration minus a margin). Default: the budget plus the job's
   * per-sitemap `timeoutMs`, so a sitemap claimed just before the budget still gets its whole timeout.
   */
  hardLimitMs?: number;
  /** Each lease's length (default 5 s), renewed by heartbeat while the work runs: how long a killed slice's work stays locked. */
  leaseMs?: number;
  /** Kept at the end of the budget for the last commit and release (default a tenth of it, 50 ms..1 s). */
  reserveMs?: number;
  /** Poll interval while waiting for work held by others (default 100 ms). */
  idlePollMs?: number;
  /** How long a slice with nothing claimable keeps waiting before it returns (default 1 s). */
  idleWaitMs?: number;
}

const SliceOptionsSchema = z.object({
  budgetMs: z
    .number()
    .int()
    .positive()
    .max(24 * 60 * 60 * 1000),
  hardLimitMs: z
    .number()
    .int()
    .positive()
    .max(24 * 60 * 60 * 1000)
    .optional(),
  leaseMs: z
    .number()
    .int()
    .min(30)
    .max(10 * 60 * 1000)
    .default(5_000),
  idlePollMs: z.number().int().positive().default(100),
  idleWaitMs: z.number().int().nonnegative().default(1_000),
  reserveMs: z.number().int().nonnegative().optional(),
  workerId: z.string().max(200).optional(),
  net: NetPolicySchema.default({ allowPrivate: false, allowHosts: [], resolve: [] }),
});

function parseSliceOptions(options: RunSliceOptions) {
  const parsed = SliceOptionsSchema.safeParse(options);
  if (!parsed.success) throw new RequestError('bad_request', `invalid slice options: ${z.prettifyError(parsed.error)}`);
  const { budgetMs, hardLimitMs } = parsed.data;
  if (hardLimitMs !== undefined && hardLimitMs < budgetMs)
    throw new RequestError('bad_request', `hardLimitMs (${hardLimitMs}) is below budgetMs (${budgetMs})`);
  return parsed.data;
}

async function sliceContext(store: JobStore, jobId: string, options: RunSliceOptions): Promise<SliceContext> {
  const parsed = parseSliceOptions(options);
  const meta = await store.getMeta(jobId);
  const reserveMs = parsed.reserveMs ?? defaultReserveMs(parsed.budgetMs);
  const clock = new SliceClock({
    budgetMs: parsed.budgetMs,
    reserveMs,
    hardLimitMs: parsed.hardLimitMs ?? parsed.budgetMs + meta.options.timeoutMs,
    signal: options.signal,
  });
  const sliceLog = log.child({ jobId, workerId: parsed.workerId ?? 'worker' });
  // Every idle loop waits on the claim signal (Wakeup.wait): more than EventTarget's default of 10 at the default concurrency.
  setMaxListeners(workLoopsFor(meta.options.concurrency) + 8, clock.claimSignal);
  return {
    store,
    jobId,
    meta,
    options: { ...meta.options, net: parsed.net },
    clock,
    wakeup: new Wakeup(),
    finishes: new FinishBatch(store, jobId),
    log: sliceLog,
    leases: new LeaseKeeper({ store, jobId, leaseMs: parsed.leaseMs, clock: clock.signal, log: sliceLog }),
    readSlots: new ReadSlots(meta.options.concurrency, clock.claimSignal),
    leaseMs: parsed.leaseMs,
    idlePollMs: parsed.idlePollMs,
    idleWaitMs: parsed.idleWaitMs,
    busy: 0,
    halted: false,
    failure: undefined,
  };
}

// A store failure in one loop halts its siblings; the slice reports it once all have wound down.
async function runLoops(context: SliceContext): Promise<void> {
  const loop = () => workLoop(context).catch((error: unknown) => haltSlice(context, error));
  await Promise.all(Array.from({ length: workLoopsFor(context.options.concurrency) }, loop));
  if (context.failure !== undefined) throw context.failure;
}

/**
 * Runs one time-boxed slice of a job: claims sitemaps under short renewed leases until `budgetMs`, commits 1000-URL
 * shards atomically, queues children through the visited set; work in flight at the budget finishes (or is committed
 * and handed back) by `hardLimitMs`, and the job's status is returned. Any number of
 * slices (workers) may run on one job at once. Throws when the store fails; the job stays consistent.
 */
export async function runSlice(store: JobStore, jobId: string, options: RunSliceOptions): Promise<JobStatus> {
  const context = await sliceContext(store, jobId, options);
  context.log.info({ event: 'slice_start', budgetMs: options.budgetMs, concurrency: context.options.concurrency }, 'slice started');
  try {
    await runLoops(context);
  } finally {
    context.leases.dispose();
    context.readSlots.dispose();
    context.clock.dispose();
  }
  const status = await getJobStatus(store, jobId);
  const { state, urlsFound, shardsWritten, sitemapsPending } = status;
  context.log.info({ event: 'slice_end', ms: context.clock.elapsedMs(), state, urlsFound, shardsWritten, sitemapsPending }, 'slice ended');
  return status;
}
