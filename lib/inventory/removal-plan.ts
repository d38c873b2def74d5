import type { ReportedError } from '../core/types.js';
import { validatorKey } from '../factory/walk/validator-log.js';
import { sitemapFate } from '../factory/walk/walk-policy.js';

/** A sitemap the site's inventory knows (it listed URLs once): its id, URL, and the last sync (seq) that read URLs from it. */
export interface KnownSitemap {
  id: number;
  url: string;
  seenSeq: number;
  /** When its streak of 404/410 answers began (ms), and how many syncs in a row it has had them; null, 0: none. */
  goneSince: number | null;
  goneSyncs: number;
  /** The last sync (seq) counted in that streak: a removal step run again after a crash has counted itself already. */
  goneSeq: number;
}

/**
 * How long a sitemap must keep answering 404/410 before its URLs are removed: at least `syncs` syncs in a row, over at
 * least `hours` (search engines retry a failing sitemap for days before they drop it; a deploy's broken hour is not a
 * site removing its pages). A site's `goneGrace` option sets it.
 */
export interface GoneGrace {
  syncs: number;
  hours: number;
}
export const DEFAULT_GONE_GRACE: GoneGrace = { syncs: 2, hours: 24 };

/** What a `done` sync learned of the site's sitemaps: the job's errors, whether it kept them all, and what was unchanged. */
export interface SyncOutcome {
  /** This sync's sequence number (syncs.seq). */
  seq: number;
  errors: ReadonlyArray<Pick<ReportedError, 'kind' | 'url' | 'status'>>;
  /** False when the job counted more errors than it kept: a sitemap may have failed without our knowing. */
  errorsComplete: boolean;
  /** Sitemaps found unchanged (not read: their URLs are the previous sync's). */
  unchanged: readonly string[];
  /** The grace before a gone sitemap's URLs go, and the sync's clock (ms). */
  grace: GoneGrace;
  now: number;
}

/** What the job of a `done` sync tells the removal step (the sync's number, the grace and the clock it adds itself). */
export type SyncJobOutcome = Omit<SyncOutcome, 'seq' | 'grace' | 'now'>;

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
  /** Gone, but within its grace: kept as unread ones are (it is among `unread`), its streak counted. */
  pending: number[];
}

const keyOf = (url: string): string => validatorKey(url) ?? url;

// Gone for this sync too: is the streak, counting it (once: a re-run of this sync's step counted it already), long enough?
function pastGrace(sitemap: KnownSitemap, { grace, now, seq }: Pick<SyncOutcome, 'grace' | 'now' | 'seq'>): boolean {
  const since = sitemap.goneSince ?? now;
  const syncs = sitemap.goneSyncs + (sitemap.goneSeq === seq ? 0 : 1);
  return syncs >= grace.syncs && now - since >= grace.hours * 3_600_000;
}

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
  const plan: RemovalPlan = { read: [], gone: [], unchanged: [], unread: [], pending: [] };
  for (const sitemap of sitemaps) {
    const key = keyOf(sitemap.url);
    const fate = failed.get(key);
    if (unchanged.has(key)) plan.unchanged.push(sitemap.id);
    // A 404 after it gave URLs this very sync (a retry) is no proof: the URLs it gave are this sync's.
    else if (fate === 'gone' && sitemap.seenSeq !== outcome.seq) {
      if (pastGrace(sitemap, outcome)) plan.gone.push(sitemap.id);
      else {
        plan.pending.push(sitemap.id);
        plan.unread.push(sitemap.id);
      }
    } else if (fate !== undefined || !attributable) plan.unread.push(sitemap.id);
    // Read this sync and reported no failure: read whole. Not read: no longer listed, unless an index's children are unknown.
    else if (sitemap.seenSeq === outcome.seq || childrenKnown) plan.read.push(sitemap.id);
    else plan.unread.push(sitemap.id);
  }
  return plan;
}
