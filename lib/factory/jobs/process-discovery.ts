import { discover, FALLBACK_SITEMAP_PATHS, fallbackAfterRobotsOf, type Discovery } from '../discovery/discovery.js';
import { toFactoryError, type FactoryError } from '../../core/errors.js';
import { noSitemapError } from '../walk/walk-policy.js';
import type { ReportedError } from '../../core/types.js';
import { enqueueRefs, newTally } from './enqueue-children.js';
import { finishWork, releaseWork } from './finish-work.js';
import type { ClaimedWork } from '../../store/job-store.js';
import type { HeldWork } from './lease-heartbeat.js';
import type { SliceContext } from './slice-context.js';

/**
 * The job's first step when it starts from a site root: robots.txt and the well-known paths. Its sitemaps
 * become the job's roots; a failure, or no sitemap at all, fails the job.
 */
export async function processDiscovery(context: SliceContext, held: HeldWork, rootUrl: string): Promise<void> {
  const { work } = held;
  let found: Discovery;
  try {
    // Discovery in flight at the budget runs on (up to the hard limit): it is not restarted from scratch next slice.
    found = await discover(rootUrl, context.options, held.signal);
  } catch (error) {
    if (held.lost) return;
    if (held.signal.aborted) return releaseWork(context, work);
    return failDiscovery(context, work, reportedRoot(toFactoryError(error, 'internal', { url: rootUrl })));
  }
  context.log.info({ event: 'sitemaps_discovered', url: rootUrl, source: found.source, sitemaps: found.sitemaps.length }, 'discovery done');
  if (found.sitemaps.length === 0) return failDiscovery(context, work, reportedRoot(noSitemapError(rootUrl)), found.problems);
  const refs = found.sitemaps.map((url) => ({ url, depth: 0, parent: null }));
  const tally = newTally();
  if (!(await enqueueRefs(context, refs, { tally, roots: found.source === 'none' ? 'robots' : found.source }))) return;
  await finishWork(context, work, { errors: [...found.problems, ...tally.refused], countSitemap: false, failure: 'none' });
}

/**
 * The well-known paths, tried once every robots.txt sitemap failed (the walk policy's fallback): the sitemap found
 * becomes the job's next root; none found fails the job (the roots' errors are already recorded).
 */
export async function processFallback(context: SliceContext, held: HeldWork, item: { rootUrl: string; tried: string[] }): Promise<void> {
  const { work } = held;
  const tried = [...item.tried];
  // A well-known path already read (robots.txt listed it) is skipped through the visited set: the next one is tried.
  for (let attempt = 0; attempt <= MAX_FALLBACK_ATTEMPTS; attempt += 1) {
    let found: string | null;
    try {
      found = await fallbackAfterRobotsOf(item.rootUrl, tried, context.options, held.signal);
    } catch (error) {
      if (held.lost) return;
      if (held.signal.aborted) return releaseWork(context, work);
      return failDiscovery(context, work, reportedRoot(toFactoryError(error, 'internal', { url: item.rootUrl })));
    }
    if (found === null) break;
    context.log.warn({ event: 'robots_sitemaps_failed', url: item.rootUrl, fallback: found }, 'robots.txt sitemaps failed: trying a well-known path');
    const tally = newTally();
    if (!(await enqueueRefs(context, [{ url: found, depth: 0, parent: null }], { tally, roots: 'fallback' }))) return;
    if (tally.added > 0) return finishWork(context, work, { errors: tally.refused, countSitemap: false, failure: 'none' });
    tried.push(found);
  }
  await finishWork(context, work, { errors: [], countSitemap: false, failure: 'job' });
}

/** Well-known paths a fallback may find already read before it gives up (they are all tried at most once). */
const MAX_FALLBACK_ATTEMPTS = 2 * FALLBACK_SITEMAP_PATHS.length;

function reportedRoot(error: FactoryError): ReportedError {
  return { kind: error.kind, url: error.url, message: error.message };
}

async function failDiscovery(context: SliceContext, work: ClaimedWork, reported: ReportedError, problems: ReportedError[] = []): Promise<void> {
  context.log.warn({ event: 'discovery_failed', kind: reported.kind, url: reported.url }, reported.message);
  await finishWork(context, work, { errors: [reported, ...problems], countSitemap: false, failure: 'job' });
}
