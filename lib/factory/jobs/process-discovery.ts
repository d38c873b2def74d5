import { discover, type Discovery } from '../discovery/discovery.js';
import { toFactoryError } from '../errors.js';
import type { ReportedError } from '../types.js';
import { enqueueRefs } from './enqueue-children.js';
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
    const failure = toFactoryError(error, 'fetch_failed', { url: rootUrl });
    return failDiscovery(context, work, { kind: failure.kind, url: failure.url ?? rootUrl, message: failure.message });
  }
  context.log.info({ event: 'sitemaps_discovered', url: rootUrl, source: found.source, sitemaps: found.sitemaps.length }, 'discovery done');
  if (found.sitemaps.length === 0) return failDiscovery(context, work, noSitemap(rootUrl), found.problems);
  const refs = found.sitemaps.map((url) => ({ url, depth: 0, parent: null }));
  if (!(await enqueueRefs(context, refs, { tally: { added: 0, rejected: 0 }, roots: true }))) return;
  await finishWork(context, work, { errors: found.problems, countSitemap: false, failure: 'none' });
}

function noSitemap(rootUrl: string): ReportedError {
  return { kind: 'not_sitemap', url: rootUrl, message: 'no sitemap found: robots.txt lists none and no well-known path answered' };
}

async function failDiscovery(context: SliceContext, work: ClaimedWork, reported: ReportedError, problems: ReportedError[] = []): Promise<void> {
  context.log.warn({ event: 'discovery_failed', kind: reported.kind, url: reported.url }, reported.message);
  await finishWork(context, work, { errors: [reported, ...problems], countSitemap: false, failure: 'job' });
}
