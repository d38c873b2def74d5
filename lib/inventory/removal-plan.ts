import type { ReportedError } from '../core/types.js';
import { validatorKey } from '../factory/walk/validator-log.js';
import { sitemapFate } from '../factory/walk/walk-policy.js';

/** A sitemap the site's inventory knows (it listed URLs once): its id, URL, and the last sync (seq) that read URLs from it. */
export interface KnownSitemap {
  id: number;
  url: string;
  seenSeq: number;
}

/** What a `done` sync learned of the site's sitemaps: the job's errors, whether it kept them all, and what was unchanged. */
export interface SyncOutcome {
  /** This sync's sequence number (syncs.seq). */
  seq: number;
  errors: ReadonlyArray<Pick<ReportedError, 'kind' | 'url' | 'status'>>;
  /** False when the job counted more errors than it kept: a sitemap may have failed without our knowing. */
  errorsComplete: boolean;
  /** Sitemaps found unchanged (not read: their URLs are the previous sync's). */
  unchanged: readonly string[];
}

/**
 * Each known sitemap's fate in one sync, by id. `read`: read whole this sync (or provably no longer listed by an index
 * read whole): its memberships this sync did not stamp go. `gone`: it answered 404/410: all its memberships go.
 * `unchanged`: kept as they are (counted in `kept`). `unread`: it failed otherwise, or whether it is still listed
 * cannot be proven: kept as they are (counted in `keptUnread`).
 */
export interface RemovalPlan {
  read: number[];
  gone: number[];
  unchanged: number[];
  unread: number[];
}

const keyOf = (url: string): string => validatorKey(url) ?? url;

/**
 * Decides each known sitemap's fate (DESIGN "Inventory": no false removals). A failure is read through `sitemapFate`
 * alone. A sitemap this sync did not read is taken as no longer listed only when every failure is accounted for: all
 * errors kept, none without a URL (a job-wide limit such as `too_many_urls`), and each unknown-fate failure is a sitemap
 * known to list URLs (a leaf), since a failed index's children list is unknown.
 */
export function planRemovals(sitemaps: readonly KnownSitemap[], outcome: SyncOutcome): RemovalPlan {
  const known = new Set(sitemaps.map((sitemap) => keyOf(sitemap.url)));
  const unchanged = new Set(outcome.unchanged.map(keyOf));
  const failed = new Map<string, 'gone' | 'unknown'>();
  let attributable = outcome.errorsComplete;
  let childrenKnown = true;
  for (const error of outcome.errors) {
    if (error.url === null) {
      attributable = false;
      continue;
    }
    const key = keyOf(error.url);
    const fate = sitemapFate(error);
    // A report on a sitemap read whole (a junk child loc it listed) is no failure of it.
    if (fate === 'read') continue;
    // One sitemap may report several problems: any unknown one makes it unknown.
    if (failed.get(key) !== 'unknown') failed.set(key, fate);
    if (fate === 'unknown' && !known.has(key)) childrenKnown = false;
  }
  const plan: RemovalPlan = { read: [], gone: [], unchanged: [], unread: [] };
  for (const sitemap of sitemaps) {
    const key = keyOf(sitemap.url);
    const fate = failed.get(key);
    if (unchanged.has(key)) plan.unchanged.push(sitemap.id);
    // A 404 after it gave URLs this very sync (a retry) is no proof: the URLs it gave are this sync's.
    else if (fate === 'gone' && sitemap.seenSeq !== outcome.seq) plan.gone.push(sitemap.id);
    else if (fate !== undefined || !attributable) plan.unread.push(sitemap.id);
    // Read this sync and reported no failure: read whole. Not read: no longer listed, unless an index's children are unknown.
    else if (sitemap.seenSeq === outcome.seq || childrenKnown) plan.read.push(sitemap.id);
    else plan.unread.push(sitemap.id);
  }
  return plan;
}
