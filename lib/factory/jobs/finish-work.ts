import type { ClaimedWork, FinishRequest, FinishResult } from '../../store/job-store.js';
import type { HeldWork } from './lease-heartbeat.js';
import { claimRequest, haltSlice, shouldStop, type SliceContext } from './slice-context.js';

/** Marks claimed work finished with its errors; a job that thereby ends (done or failed) halts the slice. */
export async function finishWork(context: SliceContext, work: ClaimedWork, end: Omit<FinishRequest, 'workId' | 'token'>): Promise<void> {
  const result = await context.finishes.finish({ workId: work.workId, token: work.token, ...end });
  settleFinish(context, work, result);
}

/**
 * `finishWork` of held work, with its last shard, claiming the loop's next work in the same step unless the slice
 * is stopping (`held.next`): false when the store refused the shard and so finished nothing.
 */
export async function tryFinishWork(context: SliceContext, held: HeldWork, end: Omit<FinishRequest, 'workId' | 'token' | 'claim'>): Promise<boolean> {
  const { work } = held;
  const claim = shouldStop(context) ? undefined : claimRequest(context);
  const result = await context.finishes.finish({ workId: work.workId, token: work.token, ...end, claim });
  if (result.type === 'shard_refused') return false;
  if (result.type !== 'lease_lost') held.next = result.next ?? null;
  settleFinish(context, work, result);
  return true;
}

function settleFinish(context: SliceContext, work: ClaimedWork, result: FinishResult): void {
  if (result.type === 'shard_refused') return;
  if (result.type === 'lease_lost') {
    context.log.warn({ event: 'lease_lost', workId: work.workId }, 'lease expired before the work finished: another worker redoes it');
    return;
  }
  context.wakeup.notify();
  if (result.state !== 'running') {
    context.log.info({ event: 'job_ended', state: result.state }, `job ${result.state}`);
    haltSlice(context);
  }
}

/** Gives the lease back at a pause, so the next slice (any worker) resumes the work at once. */
export async function releaseWork(context: SliceContext, work: ClaimedWork): Promise<void> {
  await context.store.release(context.jobId, work.workId, work.token);
}
