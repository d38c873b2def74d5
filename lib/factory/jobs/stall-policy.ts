import type { StatusParts, WorkItem } from '../../store/records.js';
import type { JobStalled } from '../../core/types.js';

/**
 * Claims a piece of work may take without its offset moving (no shard committed, no child queued) before the claim
 * step stops handing it out. A pass that reads anything commits it, even when cut off (a pause flushes), and one
 * that reads nothing in a whole pass ends as `timeout`; so only passes killed or aborted before reading anything
 * count, and this many in a row on one sitemap means it is what kills them (or nothing can be read any more).
 */
export const MAX_CLAIMS_WITHOUT_PROGRESS = 6;

function urlOf(item: WorkItem): string {
  return item.type === 'sitemap' ? item.ref.url : item.rootUrl;
}

/**
 * THE stall decision (every store, every driver): a running job is stalled once nothing is pending, nobody holds a
 * lease, and every piece of active work was claimed MAX_CLAIMS_WITHOUT_PROGRESS times without progress, since the
 * claim step hands out nothing else. A slow job is never stalled: its reads commit, or someone holds a lease.
 */
export function stalledOf(parts: StatusParts, now: number): JobStalled | null {
  const { state, pending, active, leased, fewestClaims, mostClaimed } = parts;
  if (state !== 'running' || pending > 0 || leased > 0 || active === 0 || mostClaimed === null) return null;
  if (fewestClaims < MAX_CLAIMS_WITHOUT_PROGRESS) return null;
  const { item, offset, claims } = mostClaimed;
  const reason = `claimed ${claims} times without progress past offset ${offset}: every pass was killed or cut off before it read anything: retry the job with a longer budget (a pass must read this sitemap's first entries within it)`;
  return { url: urlOf(item), reason, claims, offset, sinceMs: Math.max(0, now - Date.parse(parts.updatedAt)) };
}
