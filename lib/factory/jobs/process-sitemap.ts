import { SHARD_SIZE, type ClaimedWork, type FinishRequest } from '../../store/job-store.js';
import { activeSitemapOf } from '../../store/records.js';
import { FactoryError, toFactoryError } from '../../core/errors.js';
import type { SitemapReadEvent, SitemapReadSummary } from '../walk/sitemap-reader.js';
import { readSitemapShardEntries } from '../sitemap.js';
import type { ActiveSitemap, ShardEntry, SitemapRef, SitemapValidator } from '../../core/types.js';
import { validatorKey } from '../walk/validator-log.js';
import { rootFailure } from '../../core/frontier.js';
import { duplicateChildren, redirectTarget, reportedError, whenAllRootsFail, type RootOrigin } from '../walk/walk-policy.js';
import { sitemapReport } from '../findings/sitemap-report.js';
import { enqueueRefs, newTally, refusedChildrenErrors, type ChildTally } from './enqueue-children.js';
import { releaseWork, tryFinishWork } from './finish-work.js';
import type { HeldWork } from './lease-heartbeat.js';
import { ShardWriter } from './shard-writer.js';
import type { SliceContext } from './slice-context.js';

/** How reading one sitemap ended: read to the end, failed, paused at the hard limit or an abort, or lost to another worker. */
type ReadOutcome =
  | { type: 'read'; summary: SitemapReadSummary }
  | { type: 'failed'; error: FactoryError }
  | { type: 'paused' }
  | { type: 'lost' }
  | { type: 'cycle'; target: string };

/** One claimed sitemap being read: where it resumes (the walk's ActiveSitemap), claim (kept alive by heartbeat), shard writer and child counts. */
interface SitemapJob {
  ref: ActiveSitemap;
  held: HeldWork;
  work: ClaimedWork;
  writer: ShardWriter;
  tally: ChildTally;
  /** Set when the sitemap redirected into one already visited: it is not read (again) here. */
  cycleTarget?: string;
}

type SitemapReader = AsyncGenerator<SitemapReadEvent<ShardEntry>, SitemapReadSummary>;
type ReadStep = { type: 'event'; event: SitemapReadEvent<ShardEntry> } | ReadOutcome;

/**
 * Reads one claimed sitemap from its recorded offset, commits its shards, queues its children, and finishes it;
 * `readDone` gives the loop's read slot back between the read and the finish.
 */
export async function processSitemap(context: SliceContext, held: HeldWork, ref: SitemapRef, readDone: () => void): Promise<void> {
  const { work } = held;
  const active = activeSitemapOf(ref, work);
  const job: SitemapJob = { ref: active, held, work, writer: new ShardWriter(context, work), tally: newTally(active.added) };
  if (active.emitted > 0) context.log.info({ event: 'sitemap_resumed', url: ref.url, offset: active.emitted }, 'resuming a sitemap at its recorded offset');
  const outcome = await readInto(context, job);
  readDone();
  await settle(context, job, outcome);
}

/** The reader's next event, or how reading ended: read to the end, paused, lost, or failed. */
async function nextStep(job: SitemapJob, reader: SitemapReader): Promise<ReadStep> {
  try {
    const step = await reader.next();
    return step.done ? { type: 'read', summary: step.value } : { type: 'event', event: step.value };
  } catch (error) {
    // An abort (hard limit, shutdown, lost lease) surfaces as a read error: it is a pause, never a failure of the sitemap.
    if (job.held.signal.aborted) return job.held.lost ? { type: 'lost' } : { type: 'paused' };
    // The reader throws FactoryErrors for every network, parse and limit failure: anything else is a bug.
    return { type: 'failed', error: toFactoryError(error, 'internal', { url: job.ref.url }) };
  }
}

/** The previous run's validator for this sitemap (incremental re-sync), or null: read it whole. */
async function previousValidator(context: SliceContext, ref: SitemapRef): Promise<SitemapValidator | null> {
  // A job given no validators asks the store nothing: a first run costs no extra command (nor key) per sitemap.
  if ((context.meta.previousSitemaps ?? 0) === 0) return null;
  const key = validatorKey(ref.url);
  return key === null ? null : context.store.readPrevious(context.jobId, key);
}

async function readInto(context: SliceContext, job: SitemapJob): Promise<ReadOutcome> {
  const previous = await previousValidator(context, job.ref);
  const followRedirect = (url: string) => mayFollow(context, job, url);
  const reader: SitemapReader = readSitemapShardEntries(job.ref, context.options, {
    skip: job.ref.emitted,
    batchSize: SHARD_SIZE,
    signal: job.held.signal,
    previous,
    followRedirect,
  });
  for (;;) {
    const step = await nextStep(job, reader);
    if (step.type !== 'event') return step;
    const going = await handleEvent(context, job, step.event).catch(async (error: unknown) => {
      await closeReader(reader);
      throw error;
    });
    // The budget only stops claiming: this read goes on until the hard limit, the caller's abort or a lost lease.
    if (going && !context.halted && !context.clock.ending && !job.held.lost) continue;
    // Stopped at a batch boundary: a pause keeps the claim's progress, a loss leaves the sitemap to its new owner.
    await closeReader(reader);
    if (job.cycleTarget !== undefined) return { type: 'cycle', target: job.cycleTarget };
    return going && !context.halted && !job.held.lost ? { type: 'paused' } : { type: 'lost' };
  }
}

function handleEvent(context: SliceContext, job: SitemapJob, event: SitemapReadEvent<ShardEntry>): Promise<boolean> {
  if (event.type === 'items') return job.writer.add(event.items);
  if (event.type === 'children') return enqueueRefs(context, event.refs, { tally: job.tally, roots: null, workId: job.work.workId });
  return visitTarget(context, job, event.finalUrl);
}

/** The walk policy's redirect identity over the store's visited set: false (stop reading) when the target was visited. */
async function visitTarget(context: SliceContext, job: SitemapJob, finalUrl: string): Promise<boolean> {
  const target = redirectTarget(job.ref, finalUrl);
  if (target === null) return true;
  if ((await context.store.visit(context.jobId, job.work.workId, target.key)) !== 'seen') return true;
  context.log.info(
    { event: 'sitemap_cycle', url: job.ref.url, target: finalUrl, parent: job.ref.parent },
    'redirects to a sitemap already visited: not read again',
  );
  job.cycleTarget = finalUrl;
  return false;
}

/**
 * The walk policy's redirect identity at each hop, before the target is fetched: false (do not fetch it) when the
 * target was visited already. A store failure says false too: the `redirected` event that follows asks the store
 * again and raises the failure where the slice handles it.
 */
async function mayFollow(context: SliceContext, job: SitemapJob, url: string): Promise<boolean> {
  const target = redirectTarget(job.ref, url);
  if (target === null) return true;
  try {
    return (await context.store.visit(context.jobId, job.work.workId, target.key)) !== 'seen';
  } catch {
    return false;
  }
}

// Closes a reader left mid-sitemap so its HTTP stream is released; the summary it would return is not needed.
async function closeReader(reader: SitemapReader): Promise<void> {
  await reader.return(undefined as never).catch(() => undefined);
}

async function settle(context: SliceContext, job: SitemapJob, outcome: ReadOutcome): Promise<void> {
  if (outcome.type === 'lost') return;
  if (outcome.type === 'cycle') return finishSitemap(context, job, { errors: [], failure: 'none', cycle: { url: job.ref.url, target: outcome.target } });
  if (outcome.type !== 'paused') return finishSitemap(context, job, endOf(context, job, outcome));
  // URLs read before a pause are good: commit them so the next claim skips them.
  if (!(await job.writer.flush())) return;
  const end = pauseOutcome(context, job);
  if (end.type === 'paused') return releaseWork(context, job.work);
  await finishSitemap(context, job, endOf(context, job, end));
}

/**
 * Finishes the sitemap with its last shard and the loop's next claim in the same store step, batched with the other
 * loops' finishes (one store call for many small sitemaps). A refused shard finished nothing: the ordinary commit then
 * acts on why (halted, lease or offset lost, maxUrls) as it would.
 */
async function finishSitemap(context: SliceContext, job: SitemapJob, end: SitemapEnd): Promise<void> {
  const request = { ...end, countSitemap: true };
  const shard = job.writer.lastShard();
  if (shard === undefined) return void (await tryFinishWork(context, job.held, request));
  if (await tryFinishWork(context, job.held, { ...request, shard })) return job.writer.lastShardCommitted();
  if (await job.writer.flush()) await tryFinishWork(context, job.held, request);
}

/**
 * A read cut short at the slice's hard limit after a full pass that committed nothing will not do better next
 * time (re-fetching to the same offset costs the same transfer time): it is reported as `timeout` and the job goes
 * on. Any other pause (progress made, the caller's abort, a pass that started late) hands the sitemap back.
 */
function pauseOutcome(context: SliceContext, job: SitemapJob): Extract<ReadOutcome, { type: 'paused' | 'failed' }> {
  const passMs = Date.now() - job.held.since;
  const fullPass = passMs >= Math.min(context.options.timeoutMs, context.clock.hardLimitMs / 2);
  if (!context.clock.expired || job.writer.shards > 0 || !fullPass) return { type: 'paused' };
  const message = `not read within the slice's hard limit (${context.clock.hardLimitMs} ms): no progress past offset ${job.work.offset} in ${passMs} ms`;
  context.log.warn({ event: 'sitemap_timeout', url: job.ref.url, offset: job.work.offset, passMs }, message);
  return { type: 'failed', error: new FactoryError('timeout', message, { url: job.ref.url, depth: job.ref.depth, parent: job.ref.parent }) };
}

type SitemapEnd = Pick<FinishRequest, 'errors' | 'failure' | 'fallback' | 'resync' | 'duplicates' | 'cycle' | 'report'>;

/** How the job came by this sitemap's root: the caller, robots.txt or a well-known path. */
function originOf(job: SitemapJob): RootOrigin {
  const { item } = job.work;
  return item.type === 'sitemap' ? (item.origin ?? 'given') : 'given';
}

function endOf(context: SliceContext, job: SitemapJob, outcome: Extract<ReadOutcome, { type: 'read' | 'failed' }>): SitemapEnd {
  const refused = refusedChildrenErrors(job.ref, job.tally, context.options.maxSitemaps);
  if (outcome.type === 'read') {
    const { summary } = outcome;
    const { offered, rejected, workAdded } = job.tally;
    const duplicates = duplicateChildren({ offered, rejected, added: workAdded });
    context.log.debug(
      { event: 'sitemap_done', url: job.ref.url, urls: summary.items, shards: job.writer.shards, duplicates, unchanged: summary.unchanged },
      'sitemap done',
    );
    const key = validatorKey(job.ref.url);
    const resync = key === null ? {} : { resync: { key, url: job.ref.url, validator: summary.validator, unchanged: summary.unchanged } };
    const report = sitemapReport(summary, job.ref, originOf(job));
    return { errors: [...summary.problems, ...refused], failure: 'none', duplicates, ...resync, report };
  }
  // Logged once, by the reader that knew the context (or above, for a timeout at the hard limit).
  // As in the walk, only a sitemap read to its end reports duplicates: a failed one's children were not all seen.
  const errors = [reportedError(outcome.error, job.ref), ...refused];
  if (rootFailure(job.ref.depth, yielded(job)) === 'report') return { errors, failure: 'none' };
  return { errors, failure: 'root', ...fallbackOf(context, job) };
}

/** The sitemap handed out URLs or listed children, in this pass or an earlier one: its failure keeps what it yielded. */
function yielded(job: SitemapJob): boolean {
  return (
    job.work.offset > 0 ||
    job.work.added > 0 ||
    job.writer.shards > 0 ||
    job.writer.lastShard() !== undefined ||
    job.tally.offered > 0 ||
    job.tally.refused.length > 0
  );
}

/** What the store queues if this was the last root standing and it failed: the well-known paths, when the policy says so. */
function fallbackOf(context: SliceContext, job: SitemapJob): Pick<FinishRequest, 'fallback'> {
  const origin = originOf(job);
  const rootUrl = context.meta.rootUrl;
  if (whenAllRootsFail(origin) !== 'fallback' || rootUrl === null) return {};
  return { fallback: { key: null, item: { type: 'fallback', rootUrl, tried: [job.ref.url] } } };
}
