import { setImmediate as nextTurn } from 'node:timers/promises';
import type { InventoryDb } from './db.js';
import { applyShard } from './apply-shard.js';
import { removeWhatIsGone } from './removal.js';
import { readSiteValidators, replaceSiteValidators } from './site-validators.js';
import { recordSitemapReads } from './sitemap-records.js';
import { measureLastmodHonesty, validatorsToTrust } from './lastmod-honesty.js';
import type { Sync } from './schemas.js';
import { getSite, SiteOptionsSchema } from './sites.js';
import { withSyncHeartbeat } from './stale-syncs.js';
import { RunningSyncConflict, runningSync } from './running-sync.js';
import { appliedShards, finishSync, getSync, insertSync, recordJobStatus, SECOND_START_REFUSED } from './syncs.js';
import { isFactoryError } from '../core/errors.js';
import { createJob, getJobStatus, readJobShardEntries, runSlice, stopJob } from '../factory/jobs/index.js';
import type { NetPolicy } from '../core/limits.js';
import type { JobStatus, ReportedError } from '../core/types.js';
import { MAX_ERRORS_KEPT, type JobStore } from '../store/job-store.js';
import { newJobId } from '../store/job-id.js';
import { createLogger } from '../utils/logger.js';

const log = createLogger('inventory:sync');

/** Where a sync runs: the inventory, the job store, and the deployment's network policy. */
export interface SyncRuntime {
  db: InventoryDb;
  store: JobStore;
  net: NetPolicy;
}

/** One advance of a sync: the slice's budget, an abort signal, the worker's name in logs. */
export interface AdvanceOptions {
  budgetMs: number;
  signal?: AbortSignal;
  /**
   * Once aborted, the step starts no further shard's apply: the shards left wait in the job store for the next step.
   * Without it, the step applies every shard read so far (a sink slower than the site can make that long).
   */
  applySignal?: AbortSignal;
  workerId?: string;
}

/**
 * How a stop reaches the apply of a step driven until `stop` aborts (`serve`'s background loop, the `sync` command): a
 * store that keeps its shards (Redis, Upstash) lets the stop leave the unapplied ones to the next step, which resumes
 * the sync, so a stop is as prompt as the budget says. The memory store's shards die with the process: they are
 * applied first, so what was read stays in the inventory.
 */
export function applyStopFor(store: JobStore, stop: AbortSignal): Pick<AdvanceOptions, 'applySignal'> {
  return store.kind === 'memory' ? {} : { applySignal: stop };
}

/**
 * Starts a sync of a site: a discovery job with the site's options, given the validators of the site's last `done`
 * sync (incremental re-sync) unless `full`; a site with a running sync is a 409 `conflict`.
 */
export async function startSync(runtime: SyncRuntime, siteId: string, how: { full?: boolean } = {}): Promise<Sync> {
  const site = await getSite(runtime.db, siteId);
  const running = await runningSync(runtime.db, siteId);
  if (running) throw new RunningSyncConflict(running, SECOND_START_REFUSED);
  // The filter is the sink's (lib/inventory/apply-shard.ts): the job walks the whole site, the inventory keeps the sub-tree.
  const { filter: _filter, ...limits } = SiteOptionsSchema.parse(site.options);
  const previous = how.full === true ? {} : validatorsToTrust(await readSiteValidators(runtime.db, siteId), site.lastmodHonesty);
  const job = await createJob(runtime.store, { rootUrl: site.rootUrl, options: { ...limits, net: runtime.net }, previous });
  try {
    return await insertSync(runtime.db, { syncId: newJobId(), siteId, jobId: job.jobId });
  } catch (error) {
    await stopJob(runtime.store, job.jobId).catch(() => undefined);
    throw error;
  }
}

// A memory store forgets its jobs with the process: the sync cannot go on, and says why.
async function jobStatusOrNull(store: JobStore, jobId: string): Promise<JobStatus | null> {
  try {
    return await getJobStatus(store, jobId);
  } catch (error) {
    if (isFactoryError(error) && error.kind === 'not_found') return null;
    throw error;
  }
}

/**
 * Applies every shard the job has written that the inventory does not hold yet, one shard in memory at a time, until
 * `stop` aborts; true when none is left. Each shard starts on a new turn of the event loop: PGlite answers its queries
 * without one, so a long apply would otherwise hold off timers (the heartbeat), signals and, in `serve`, every
 * request until its last shard.
 */
async function applyPending(runtime: SyncRuntime, sync: Sync, status: JobStatus, stop?: AbortSignal): Promise<boolean> {
  const applied = await appliedShards(runtime.db, sync.syncId);
  const filter = SiteOptionsSchema.parse((await getSite(runtime.db, sync.siteId)).options).filter ?? null;
  for (let shard = 0; shard < status.shardsWritten; shard += 1) {
    if (applied.has(shard)) continue;
    await nextTurn();
    if (stop?.aborted === true) return false;
    const read = await readJobShardEntries(runtime.store, sync.jobId, shard);
    if (read === null) return false;
    await applyShard(runtime.db, { syncId: sync.syncId, siteId: sync.siteId, shard, entries: read.entries, filter });
    // Applied for good: a store holding shards in this process's memory lets go of it.
    await runtime.store.dropShard(sync.jobId, shard);
  }
  return true;
}

// A failed job says why through its first error (the root sitemap that could not be read).
function endMessage(status: JobStatus): string {
  const [first] = status.errors;
  return first ? `the job ended ${status.state}: ${first.kind}: ${first.message}` : `the job ended ${status.state}`;
}

/**
 * The job's kept errors as its store holds them (with the HTTP status, parent and depth the JobStatus leaves out):
 * what the sync shows as failed sitemaps and what the removal step reads each failure's fate from.
 */
async function jobErrors(store: JobStore, jobId: string): Promise<ReportedError[]> {
  return (await store.readStatus(jobId)).errors;
}

/**
 * After the job: a `done` job with every shard in removes what no sitemap lists any more; stopped or failed remove
 * nothing. A stalled job would only be driven round in circles: it is stopped and the sync fails, saying on what and why.
 */
async function settle(runtime: SyncRuntime, sync: Sync, status: JobStatus, errors: ReportedError[], complete: boolean): Promise<void> {
  // Each sitemap's record, from what the job read of it, before the sync says it ended (so it is there once it has).
  const record = async (listed?: readonly number[]) =>
    recordSitemapReads(runtime.db, sync, { reports: await runtime.store.readReports(sync.jobId), errors, ...(listed ? { listed } : {}) });
  if (status.stalled !== null) {
    await stopJob(runtime.store, sync.jobId);
    await record();
    return finishSync(runtime.db, sync.syncId, 'failed', `the job stalled on ${status.stalled.url}: ${status.stalled.reason}`);
  }
  if (status.state === 'running') return;
  if (status.state !== 'done') {
    await record();
    return finishSync(runtime.db, sync.syncId, status.state, endMessage(status));
  }
  if (!complete) return;
  // Unchanged sitemaps were not read: their URLs stay as they are, never removed. The validators go on to the next sync.
  const resync = await runtime.store.readResync(sync.jobId);
  // The job keeps its first MAX_ERRORS_KEPT errors: at the cap, a failure may have gone unrecorded.
  const errorsComplete = errors.length < MAX_ERRORS_KEPT;
  const plan = await removeWhatIsGone(runtime.db, sync, { errors, errorsComplete, unchanged: resync.unchanged });
  await replaceSiteValidators(runtime.db, sync, resync.validators);
  await record(plan.read);
  await measureLastmodHonesty(runtime.db, await getSync(runtime.db, sync.syncId));
  // Stopped by the site's maxUrls: done, and its message says so (a limit reached, not an error).
  await finishSync(runtime.db, sync.syncId, 'done', status.limitReached);
  const done = await getSync(runtime.db, sync.syncId);
  const counts = { removed: done.removed, unchanged: resync.unchanged.length, keptUnread: done.keptUnread, unreadSitemaps: plan.unread.length };
  log.info({ event: 'sync_done', syncId: sync.syncId, siteId: sync.siteId, ...counts }, 'sync done');
}

/**
 * Advances a sync by one step: one slice of its job (unless the job has ended), then every shard written so far
 * and not applied, then the sync row from the job's status; when the job is done and all shards are in, the removal
 * step and `done`. Safe to call from several workers at once and again after a crash.
 */
export async function advanceSync(runtime: SyncRuntime, syncId: string, options: AdvanceOptions): Promise<Sync> {
  const sync = await getSync(runtime.db, syncId);
  if (sync.state !== 'running') return sync;
  const found = await jobStatusOrNull(runtime.store, sync.jobId);
  if (found === null) {
    await finishSync(
      runtime.db,
      syncId,
      'failed',
      `job ${sync.jobId} is gone from the ${runtime.store.kind} store (a memory store does not survive a restart)`,
    );
    return getSync(runtime.db, syncId);
  }
  // The step moves the sync's row as it goes: however long it reads and applies, it is not taken for a lost one.
  const { status, errors, complete } = await withSyncHeartbeat(runtime.db, syncId, async () => {
    const sliced = found.state === 'running' ? await runSlice(runtime.store, sync.jobId, { ...options, net: runtime.net }) : found;
    // The job's counters go in before its shards are applied: what the inventory holds (seen, shards applied) is
    // never ahead of what the sync says was found, at any moment and after a kill between the two.
    const kept = await jobErrors(runtime.store, sync.jobId);
    await recordJobStatus(runtime.db, syncId, sliced, kept);
    return { status: sliced, errors: kept, complete: await applyPending(runtime, sync, sliced, options.applySignal) };
  });
  await settle(runtime, sync, status, errors, complete);
  return getSync(runtime.db, syncId);
}

/** Stops a sync: its job stops, the sync ends `stopped` and removes nothing. A sync already ended is returned as it is. */
export async function stopSync(runtime: SyncRuntime, syncId: string, siteId?: string): Promise<Sync> {
  const sync = await getSync(runtime.db, syncId, siteId);
  if (sync.state !== 'running') return sync;
  const status = await jobStatusOrNull(runtime.store, sync.jobId);
  if (status?.state === 'running') await recordJobStatus(runtime.db, syncId, await stopJob(runtime.store, sync.jobId));
  await finishSync(runtime.db, syncId, 'stopped', 'stopped by request');
  return getSync(runtime.db, syncId);
}

/**
 * Ends a running sync `failed` with `message` (a queue that gave up on its slices): its job is stopped when the store
 * answers (a store that is down is often why the slices failed), and nothing is removed. An ended sync stays as it is.
 */
export async function failSync(db: InventoryDb, openStore: () => Promise<JobStore>, syncId: string, message: string): Promise<Sync> {
  const sync = await getSync(db, syncId);
  if (sync.state !== 'running') return sync;
  try {
    await stopJob(await openStore(), sync.jobId);
  } catch (error) {
    log.warn({ event: 'failed_sync_job_not_stopped', syncId, jobId: sync.jobId, err: error }, 'the job of a failed sync could not be stopped');
  }
  await finishSync(db, syncId, 'failed', message);
  return getSync(db, syncId);
}
