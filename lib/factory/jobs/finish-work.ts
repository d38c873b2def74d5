import type { ClaimedWork, FinishRequest } from '../../store/job-store.js';
import { haltSlice, type SliceContext } from './slice-context.js';

/** Marks claimed work finished with its errors; a job that thereby ends (done or failed) halts the slice. */
export async function finishWork(context: SliceContext, work: ClaimedWork, end: Omit<FinishRequest, 'workId' | 'token'>): Promise<void> {
  await tryFinishWork(context, work, end);
}

/** `finishWork` with a last shard: false when the store refused that shard and so finished nothing. */
export async function tryFinishWork(context: SliceContext, work: ClaimedWork, end: Omit<FinishRequest, 'workId' | 'token'>): Promise<boolean> {
  const result = await context.store.finishWork(context.jobId, { workId: work.workId, token: work.token, ...end });
  if (result.type === 'shard_refused') return false;
  if (result.type === 'lease_lost') {
    context.log.warn({ event: 'lease_lost', workId: work.workId }, 'lease expired before the work finished: another worker redoes it');
    return true;
  }
  context.wakeup.notify();
  if (result.state !== 'running') {
    context.log.info({ event: 'job_ended', state: result.state }, `job ${result.state}`);
    haltSlice(context);
  }
  return true;
}

/** Gives the lease back at a pause, so the next slice (any worker) resumes the work at once. */
export async function releaseWork(context: SliceContext, work: ClaimedWork): Promise<void> {
  await context.store.release(context.jobId, work.workId, work.token);
}
