import { z } from 'zod';
import type { JobStore } from '../../store/job-store.js';
import { createLogger } from '../../utils/logger.js';
import { RequestError } from '../errors.js';
import { NetPolicySchema, type NetPolicyInput } from '../limits.js';
import type { JobStatus } from '../types.js';
import { defaultReserveMs, SliceClock } from './slice-clock.js';
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
  /** Added to the budget for each lease (default 2 s): how long a killed slice's work stays locked. */
  leaseMarginMs?: number;
  /** Kept at the end of the budget for the last commit and release (default a tenth of it, 50 ms..1 s). */
  reserveMs?: number;
  /** Poll interval while waiting for work held by others (default 100 ms). */
  idlePollMs?: number;
  /** How long a slice with nothing claimable keeps waiting before it returns (default 1 s). */
  idleWaitMs?: number;
}

const SliceOptionsSchema = z.object({
  budgetMs: z.number().int().positive().max(24 * 60 * 60 * 1000),
  leaseMarginMs: z.number().int().nonnegative().default(2_000),
  idlePollMs: z.number().int().positive().default(100),
  idleWaitMs: z.number().int().nonnegative().default(1_000),
  reserveMs: z.number().int().nonnegative().optional(),
  workerId: z.string().max(200).optional(),
  net: NetPolicySchema.default({ allowPrivate: false, allowHosts: [], resolve: [] }),
});

function parseSliceOptions(options: RunSliceOptions) {
  const parsed = SliceOptionsSchema.safeParse(options);
  if (!parsed.success) throw new RequestError('bad_request', `invalid slice options: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

async function sliceContext(store: JobStore, jobId: string, options: RunSliceOptions): Promise<SliceContext> {
  const parsed = parseSliceOptions(options);
  const meta = await store.getMeta(jobId);
  const reserveMs = parsed.reserveMs ?? defaultReserveMs(parsed.budgetMs);
  return {
    store,
    jobId,
    meta,
    options: { ...meta.options, net: parsed.net },
    clock: new SliceClock({ budgetMs: parsed.budgetMs, reserveMs, signal: options.signal }),
    wakeup: new Wakeup(),
    log: log.child({ jobId, workerId: parsed.workerId ?? 'worker' }),
    leaseMs: parsed.budgetMs + parsed.leaseMarginMs,
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
  await Promise.all(Array.from({ length: context.options.concurrency }, loop));
  if (context.failure !== undefined) throw context.failure;
}

/**
 * Runs one time-boxed slice of a job: claims sitemaps under leases, commits 1000-URL shards atomically, queues
 * children through the visited set, and returns the job's status before `budgetMs` runs out. Any number of
 * slices (workers) may run on one job at once. Throws when the store fails; the job stays consistent.
 */
export async function runSlice(store: JobStore, jobId: string, options: RunSliceOptions): Promise<JobStatus> {
  const context = await sliceContext(store, jobId, options);
  context.log.info({ event: 'slice_start', budgetMs: options.budgetMs, concurrency: context.options.concurrency }, 'slice started');
  try {
    await runLoops(context);
  } finally {
    context.clock.dispose();
  }
  const status = await store.getStatus(jobId);
  const { state, urlsFound, shardsWritten, sitemapsPending } = status;
  context.log.info({ event: 'slice_end', ms: context.clock.elapsedMs(), state, urlsFound, shardsWritten, sitemapsPending }, 'slice ended');
  return status;
}
