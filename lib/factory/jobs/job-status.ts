import type { StatusParts } from '../../store/records.js';
import type { JobStatus } from '../../core/types.js';
import { stalledOf } from './stall-policy.js';
import { isRunLimit } from '../../core/frontier.js';

/** The API's JobStatus from a store's status parts: the one place that shape is built. */
export function jobStatusOf(jobId: string, parts: StatusParts, now = Date.now()): JobStatus {
  return {
    jobId,
    state: parts.state,
    done: parts.state !== 'running',
    urlsFound: parts.urlsFound,
    shardsWritten: parts.shardsWritten,
    sitemapsDone: parts.sitemapsDone,
    sitemapsPending: parts.pending + parts.active,
    errors: parts.errors
      .filter((error) => !isRunLimit(error))
      .map(({ kind, url, message, status }) => (status === undefined ? { kind, url, message } : { kind, url, message, status })),
    limitReached: parts.errors.find(isRunLimit)?.message ?? null,
    startedAt: parts.createdAt,
    updatedAt: parts.updatedAt,
    stalled: stalledOf(parts, now),
    cycles: parts.cycles.map(({ url, target }) => ({ url, target })),
    cycleCount: parts.cycleCount,
    duplicates: parts.duplicates,
  };
}
