import type PgBoss from 'pg-boss';
import { z } from 'zod';
import type { InventoryDb } from '../../inventory/db.js';
import type { PgBossSettings } from '../../config/factory-config.js';

/** The data of a slice job (and of its dead letter): which sync to advance. */
export const SliceJobSchema = z.object({ syncId: z.string().min(1) });

/** The queues of one inventory: its slices, and where slices that failed every retry go. */
export interface SliceQueues {
  slices: string;
  deadLetters: string;
}

/**
 * One queue per inventory schema, so inventories that share a database (tests, staging beside production) never take
 * each other's slices.
 */
export async function sliceQueues(db: InventoryDb): Promise<SliceQueues> {
  const [row] = await db.query('SELECT current_schema() AS schema');
  const schema = z.string().parse(row?.schema);
  return { slices: `sync-slices-${schema}`, deadLetters: `sync-slices-${schema}-failed` };
}

/**
 * Creates the queues if missing (idempotent, safe from several workers at once). `short` keeps at most one waiting
 * slice per sync (its singleton key): asking again while one waits adds nothing.
 */
export async function createSliceQueues(boss: PgBoss, queues: SliceQueues, settings: PgBossSettings): Promise<void> {
  await boss.createQueue(queues.deadLetters, { name: queues.deadLetters, policy: 'standard', retryLimit: 3 });
  await boss.createQueue(queues.slices, {
    name: queues.slices,
    policy: 'short',
    retryLimit: settings.retryLimit,
    retryDelay: settings.retryDelaySeconds,
    retryBackoff: true,
    expireInSeconds: settings.expireSeconds,
    deadLetter: queues.deadLetters,
  });
}

/**
 * Queues the next slice of a sync unless one already waits for it. Every option travels with the job, so a queue made
 * by an older worker with other settings still retries, expires and dead-letters as this one says.
 */
export async function sendSlice(
  boss: PgBoss,
  target: { queues: SliceQueues; settings: PgBossSettings },
  job: { syncId: string; startAfterSeconds?: number },
): Promise<void> {
  const { queues, settings } = target;
  await boss.send(queues.slices, SliceJobSchema.parse({ syncId: job.syncId }), {
    singletonKey: job.syncId,
    retryLimit: settings.retryLimit,
    retryDelay: settings.retryDelaySeconds,
    retryBackoff: true,
    expireInSeconds: settings.expireSeconds,
    deadLetter: queues.deadLetters,
    ...(job.startAfterSeconds === undefined ? {} : { startAfter: job.startAfterSeconds }),
  });
}
