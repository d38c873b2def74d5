import { SHARD_SIZE, type QueuedWork } from '../../store/job-store.js';
import type { ReportedError, SitemapRef } from '../../core/types.js';
import { sitemapKey, sitemapLimitError, type RootOrigin } from '../walk/walk-policy.js';
import { haltSlice, type SliceContext } from './slice-context.js';

/** Child sitemaps sent to the store per call: bounded request size (Upstash caps request bodies). */
const ENQUEUE_CHUNK = SHARD_SIZE;

/**
 * Counts an index's children in one pass: offered to the store, added, refused over maxSitemaps and refused before
 * it (reported when the index is done), and `workAdded`, what the index queued over all its passes (from the store).
 */
export interface ChildTally {
  offered: number;
  added: number;
  rejected: number;
  refused: ReportedError[];
  workAdded: number;
}

/** A fresh tally; `workAdded` starts at what earlier passes of the work queued. */
export const newTally = (workAdded = 0): ChildTally => ({ offered: 0, added: 0, rejected: 0, refused: [], workAdded });

/** Turns refs into queued work keyed by identity; a ref whose URL cannot be keyed is reported in `refused`. */
function toWork(refs: SitemapRef[], origin: RootOrigin, refused: ReportedError[]): QueuedWork[] {
  return refs.flatMap((ref) => {
    const keyed = sitemapKey(ref);
    if ('error' in keyed) {
      refused.push(keyed.error);
      return [];
    }
    const item = origin === 'given' ? { type: 'sitemap' as const, ref } : { type: 'sitemap' as const, ref, origin };
    return [{ key: keyed.key, item }];
  });
}

/** Where refs go: the tally to count in, whether they are the job's roots (and from where), the work that found them. */
export interface EnqueueTarget {
  tally: ChildTally;
  roots: RootOrigin | null;
  workId?: string;
}

/** Adds children (or, with `roots`, the job's root sitemaps) through the visited set; false once the job is halted. */
export async function enqueueRefs(context: SliceContext, refs: SitemapRef[], into: EnqueueTarget): Promise<boolean> {
  const { tally, workId } = into;
  const roots = into.roots !== null;
  const work = toWork(refs, into.roots ?? 'given', tally.refused);
  for (let start = 0; start < work.length; start += ENQUEUE_CHUNK) {
    const items = work.slice(start, start + ENQUEUE_CHUNK);
    const result = await context.store.enqueue(context.jobId, { items, roots, ...(workId === undefined ? {} : { workId }) });
    if (result.type === 'halted') {
      haltSlice(context);
      return false;
    }
    tally.offered += items.length;
    tally.added += result.added;
    tally.rejected += result.rejected;
    if (workId !== undefined) tally.workAdded = result.workAdded;
  }
  if (tally.added > 0) context.wakeup.notify();
  return true;
}

/** The errors reported for children refused (unparseable, or over maxSitemaps), if any. */
export function refusedChildrenErrors(ref: SitemapRef, tally: ChildTally, maxSitemaps: number): ReportedError[] {
  return tally.rejected === 0 ? tally.refused : [...tally.refused, sitemapLimitError(ref, maxSitemaps, tally.rejected)];
}
