import { FactoryError } from '../../core/errors.js';
import type { ConditionalRequest } from '../fetch/index.js';
import type { ReportedError, SitemapRef, SitemapValidator } from '../../core/types.js';
import { tryIdentityKey } from '../url/url-identity.js';

/**
 * The walk's decisions, as plain data in and out. SitemapWalk (CLI, library) and the job runner (every store)
 * both take them from here; the stores only keep state and apply the outcomes atomically.
 */

/** Where a root sitemap came from: given by the caller, listed in robots.txt, or found at a well-known path. */
export type RootOrigin = 'given' | 'robots' | 'home-page' | 'fallback';

/**
 * What happens once every root sitemap failed with nothing found: robots.txt lines (and home-page links) are often
 * stale (a 404, a development host), so the well-known paths are tried next; any other roots failing fails the walk.
 */
export function whenAllRootsFail(origin: RootOrigin): 'fallback' | 'fail' {
  return origin === 'robots' || origin === 'home-page' ? 'fallback' : 'fail';
}

/** A site with no sitemap at all fails the walk: silence would read as "an empty site". */
export function noSitemapError(rootUrl: string): FactoryError {
  return new FactoryError('not_sitemap', 'no sitemap found: robots.txt lists none and no well-known path answered', { url: rootUrl });
}

/** A failure as the walk reports it (an error event, a job's error entry). */
export function reportedError(error: FactoryError, ref: SitemapRef): ReportedError {
  const reported: ReportedError = { kind: error.kind, url: error.url ?? ref.url, message: error.message, parent: ref.parent, depth: ref.depth };
  if (error.kind === 'http_status' && error.context.status !== undefined) reported.status = error.context.status;
  return reported;
}

/**
 * What a sitemap's failure says about the URLs it listed before: `gone` (it answered 404 or 410: the site took it
 * down, so its URLs are gone with it) or `unknown` (a 5xx, a timeout, a reset, a refusal by policy, a limit, a
 * cut-off: nothing is known of what it lists now, so what it listed is kept). The walk, the jobs and the
 * inventory's removals all read a failure through this one rule.
 */
export type SitemapFate = 'gone' | 'unknown' | 'read';

/** The fate of a sitemap that failed with `error` (see SitemapFate); `read` for a report on one read whole. */
export function sitemapFate(error: Pick<ReportedError, 'kind' | 'status' | 'readWhole'>): SitemapFate {
  if (error.readWhole === true) return 'read';
  return error.kind === 'http_status' && (error.status === 404 || error.status === 410) ? 'gone' : 'unknown';
}

/** The visited-set key of a sitemap, or the error that reports it when its URL cannot be keyed (never dropped silently). */
export function sitemapKey(ref: SitemapRef): { key: string } | { error: ReportedError } {
  const key = tryIdentityKey(ref.url);
  if (key !== null) return { key };
  return { error: reportedError(new FactoryError('invalid_url', 'sitemap URL cannot be parsed', ref), ref) };
}

/** What one complete read of an index offered the visited set: children keyed, refused over maxSitemaps, and queued by it. */
export interface ChildCounts {
  offered: number;
  rejected: number;
  /** Children this sitemap queued, in this read or an earlier pass of it (which a re-read meets again in the visited set). */
  added: number;
}

/**
 * Children an index listed that were already visited (listed twice, listed by another index, or a URL variant of an
 * ancestor): not queued again, but counted, never skipped silently. A sitemap's own children from an earlier pass are
 * not duplicates.
 */
export function duplicateChildren(counts: ChildCounts): number {
  return Math.max(0, counts.offered - counts.rejected - counts.added);
}

/** The report for sitemaps refused over `maxSitemaps` (`skipped` of them, under `ref`). */
export function sitemapLimitError(ref: SitemapRef, maxSitemaps: number, skipped: number | null): ReportedError {
  const count = skipped === null ? 'further' : `${skipped} child`;
  const message = `maxSitemaps (${maxSitemaps}) reached: ${count} sitemaps skipped`;
  return reportedError(new FactoryError('too_many_children', message, { ...ref, limit: maxSitemaps }), ref);
}

/**
 * A sitemap reached through a redirect is known by its final URL too: if that final URL is a sitemap already read
 * (or being read), this one is not read again and a `cycle` is reported with both URLs.
 */
export function redirectTarget(ref: SitemapRef, finalUrl: string): { key: string } | null {
  const from = tryIdentityKey(ref.url);
  const to = tryIdentityKey(finalUrl);
  return to !== null && to !== from ? { key: to } : null;
}

/** How a sitemap is obtained given what the previous run learned of it: not at all, or a GET (conditional when it can be). */
export type FetchPlan = { type: 'skip' } | { type: 'fetch'; conditional: ConditionalRequest | null };

/**
 * Incremental re-sync. A child whose index `<lastmod>` is the one the previous run read it under is not fetched
 * (the index vouches for it); else it is asked for with the previous `ETag` / `Last-Modified`, a 304 meaning
 * unchanged. Only leaves ever have a previous validator (`validatorToKeep`), so an index is always read whole:
 * its children list is what the walk follows, and a 304 or a skip would leave nothing to follow.
 * No previous validator (a first run, or `--full`): a plain GET.
 */
export function fetchPlan(ref: SitemapRef, previous: SitemapValidator | null): FetchPlan {
  if (previous === null) return { type: 'fetch', conditional: null };
  const listedWith = ref.lastmod ?? null;
  if (listedWith !== null && listedWith === previous.lastmod) return { type: 'skip' };
  if (previous.etag === null && previous.lastModified === null) return { type: 'fetch', conditional: null };
  return { type: 'fetch', conditional: { etag: previous.etag, lastModified: previous.lastModified } };
}

/** What one sitemap's read came to, as far as the next run's validators are concerned. */
export interface ValidatorSource {
  ref: SitemapRef;
  /** Children it listed: an index (of any root element) is never skipped, so it keeps no validator. */
  children: number;
  /** Limits or a cut-off met: what was read is partial, so the next run reads it again. */
  problems: number;
  etag: string | null;
  lastModified: string | null;
}

/**
 * The validator to remember for the next run, or null: only a leaf read whole (or found unchanged) with something
 * to compare (an index lastmod, an ETag or a Last-Modified) is worth keeping.
 */
export function validatorToKeep(read: ValidatorSource): SitemapValidator | null {
  if (read.children > 0 || read.problems > 0) return null;
  const validator = { etag: read.etag, lastModified: read.lastModified, lastmod: read.ref.lastmod ?? null };
  return validator.etag === null && validator.lastModified === null && validator.lastmod === null ? null : validator;
}
