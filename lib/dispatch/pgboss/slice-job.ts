import type PgBoss from 'pg-boss';
import { z } from 'zod';
import { isFactoryError } from '../../core/errors.js';
import { getSite } from '../../inventory/sites.js';
import { advanceSync, failSync, type SyncRuntime } from '../../inventory/sync-driver.js';
import { getSync } from '../../inventory/syncs.js';
import { createLogger } from '../../utils/logger.js';
import type { HostSlots } from './host-slots.js';
import type { PgBossSettings } from '../../config/factory-config.js';
import { sendSlice, SliceJobSchema, type SliceQueues } from './slice-queue.js';

const log = createLogger('dispatch:pgboss');

/** Budget of one slice job: short, so a stop is answered within seconds and the queue interleaves syncs fairly. */
export const SLICE_BUDGET_MS = 5_000;

/** A slice whose host has all its slots taken here waits this long in the queue, for this worker or another. */
const HOST_BUSY_DELAY_SECONDS = 1;

/** What a slice job needs from the worker that runs it. */
export interface SliceJobContext {
  boss: PgBoss;
  queues: SliceQueues;
  settings: PgBossSettings;
  runtime: () => Promise<SyncRuntime>;
  hosts: HostSlots;
  signal: AbortSignal;
  workerId: string;
}

// The host (with its port) of the sync's site, or null when the sync has ended or is gone: nothing left to run.
async function runningSyncHost(runtime: SyncRuntime, syncId: string): Promise<string | null> {
  try {
    const sync = await getSync(runtime.db, syncId);
    if (sync.state !== 'running') return null;
    return new URL((await getSite(runtime.db, sync.siteId)).rootUrl).host;
  } catch (error) {
    if (isFactoryError(error) && error.kind === 'not_found') return null;
    throw error;
  }
}

/**
 * Runs one slice of a sync, then queues the next while this job is still active (so a worker killed in between leaves
 * this job to expire and be retried, never a sync with no job). A host whose slots are all held, by this worker or
 * another, puts the slice back for a moment. A throw fails the job: pg-boss retries it with backoff, then dead-letters it.
 */
export async function runSliceJob(context: SliceJobContext, job: PgBoss.Job<unknown>): Promise<void> {
  const { syncId } = SliceJobSchema.parse(job.data);
  const runtime = await context.runtime();
  const host = await runningSyncHost(runtime, syncId);
  if (host === null) return;
  const outcome = await context.hosts.withSlot(host, async () => {
    const sync = await advanceSync(runtime, syncId, { budgetMs: SLICE_BUDGET_MS, signal: context.signal, workerId: context.workerId });
    if (sync.state === 'running') await sendSlice(context.boss, context, { syncId });
  });
  if (!outcome.ran) await sendSlice(context.boss, context, { syncId, startAfterSeconds: HOST_BUSY_DELAY_SECONDS });
}

// What pg-boss keeps of the last failure (a serialised Error, or its own expiry message under `value`).
const FailureSchema = z.union([z.object({ message: z.string() }), z.object({ value: z.object({ message: z.string() }) })]);

function failureMessage(output: unknown): string {
  const parsed = FailureSchema.safeParse(output);
  if (!parsed.success) return 'no reason recorded';
  return 'value' in parsed.data ? parsed.data.value.message : parsed.data.message;
}

/**
 * A slice that failed every retry: its sync ends `failed` with the last reason and its job is stopped (failSync, as when
 * QStash gives up), instead of waiting for a driver forever.
 */
export async function endDeadSync(context: SliceJobContext, job: PgBoss.JobWithMetadata<unknown>): Promise<void> {
  const { syncId } = SliceJobSchema.parse(job.data);
  const reason = `its slices failed ${context.settings.retryLimit + 1} times; the last: ${failureMessage(job.output)}`;
  const runtime = await context.runtime();
  await failSync(runtime.db, async () => runtime.store, syncId, reason);
  log.warn({ event: 'sync_dead_lettered', syncId, reason }, 'a sync whose slices kept failing ended failed');
}
