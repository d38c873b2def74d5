import { SHARD_SIZE, type QueuedWork } from '../../store/job-store.js';
import type { ReportedError, SitemapRef } from '../types.js';
import { tryIdentityKey } from '../url/url-identity.js';
import { haltSlice, type SliceContext } from './slice-context.js';

/** Child sitemaps sent to the store per call: bounded request size (Upstash caps request bodies). */
const ENQUEUE_CHUNK = SHARD_SIZE;

/** Counts an index's children the store refused (over maxSitemaps), to report once when the index is done. */
export interface ChildTally {
  added: number;
  rejected: number;
}

/** Turns refs into queued work keyed by identity; a ref whose URL cannot be keyed is skipped. */
function toWork(refs: SitemapRef[]): QueuedWork[] {
  return refs.flatMap((ref) => {
    const key = tryIdentityKey(ref.url);
    return key === null ? [] : [{ key, item: { type: 'sitemap' as const, ref } }];
  });
}

/** Adds children (or, with `roots`, the job's root sitemaps) through the visited set; false once the job is halted. */
export async function enqueueRefs(context: SliceContext, refs: SitemapRef[], into: { tally: ChildTally; roots: boolean }): Promise<boolean> {
  const { tally, roots } = into;
  const work = toWork(refs);
  for (let start = 0; start < work.length; start += ENQUEUE_CHUNK) {
    const result = await context.store.enqueue(context.jobId, { items: work.slice(start, start + ENQUEUE_CHUNK), roots });
    if (result.type === 'halted') {
      haltSlice(context);
      return false;
    }
    tally.added += result.added;
    tally.rejected += result.rejected;
  }
  if (tally.added > 0) context.wakeup.notify();
  return true;
}

/** The error reported for children refused over maxSitemaps, if any. */
export function rejectedChildrenError(ref: SitemapRef, tally: ChildTally, maxSitemaps: number): ReportedError[] {
  if (tally.rejected === 0) return [];
  const message = `maxSitemaps (${maxSitemaps}) reached: ${tally.rejected} child sitemaps skipped`;
  return [{ kind: 'too_many_children', url: ref.url, message, parent: ref.parent, depth: ref.depth }];
}
