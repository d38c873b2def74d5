import { getDomain } from 'tldts';
import { leadingSegments, normaliseHreflang, pathFactsOf } from '../scope/locale.js';
import type { SitemapRef } from '../../core/types.js';
import { FilterOptionsSchema, type FilterOptions, type FilterOptionsInput } from '../../core/filter-options.js';
import { compilePattern, isRegexLiteral } from '../../core/url-pattern.js';

/** What a filter looks at: one page URL (a loc or an hreflang alternate), its lastmod and its locale. */
export interface FilterCandidate {
  url: string;
  lastmod: string | null;
  locale: string | null;
}

/** Decides whether one page URL is kept; `ref` is the sitemap that listed it. */
export type EntryFilter = (candidate: FilterCandidate, ref: SitemapRef) => boolean;

type UrlTest = (url: URL, locale: string | null) => boolean;

/** A glob (path-only when it starts with `/`) or `/regex/` as a linear-time test over a parsed URL. */
function patternTest(pattern: string): (url: URL) => boolean {
  const test = compilePattern(pattern);
  if (isRegexLiteral(pattern) || !pattern.startsWith('/')) return (url) => test(url.href);
  return (url) => test(`${url.pathname}${url.search}`);
}

/**
 * The path groups and prefixes to keep, as one test. A prefix keeps the URLs under it, a leading locale folder looked
 * through (`/en-us/docs/x` and, with hreflang `ca`, `/ca/docs/x` are under `/docs/`); `/` alone is the root group (the
 * pages in no folder, as `groups` reports it), never "everything", which is no prefix at all.
 */
function prefixTest(prefixes: string[]): (url: URL, locale: string | null) => boolean {
  const wanted = prefixes.map((prefix) => `/${prefix.replace(/\*+$/, '').replace(/^\/+/, '')}`);
  const rootGroup = wanted.includes('/');
  const folders = wanted.filter((prefix) => prefix !== '/');
  return (url, locale) => {
    const facts = pathFactsOf(url.pathname, locale);
    if (rootGroup && facts.pathPrefix === '/') return true;
    const bare = facts.locale === null ? null : pathAfterFirstSegment(url.pathname);
    return folders.some((prefix) => url.pathname.startsWith(prefix) || (bare !== null && bare.startsWith(prefix)));
  };
}

// `/en-us/docs/x` -> `/docs/x`; a path of one segment -> `/`.
function pathAfterFirstSegment(pathname: string): string {
  const [first] = leadingSegments(pathname, 1);
  if (first === undefined) return pathname;
  const rest = pathname.slice(pathname.indexOf(first.name) + first.name.length);
  return rest === '' ? '/' : rest;
}

function localeTest(locales: string[]): (locale: string | null) => boolean {
  const wanted = locales.map((locale) => (normaliseHreflang(locale) ?? locale).toLowerCase());
  return (locale) => {
    if (locale === null) return false;
    const have = locale.toLowerCase();
    return wanted.some((want) => have === want || have.startsWith(`${want}-`));
  };
}

function sinceTest(options: FilterOptions): ((lastmod: string | null) => boolean) | null {
  if (options.since === null) return null;
  const since = Date.parse(options.since);
  return (lastmod) => {
    const time = lastmod === null ? Number.NaN : Date.parse(lastmod);
    return Number.isNaN(time) ? !options.requireLastmod : time >= since;
  };
}

/** The host (or registrable domain) a URL is compared by; IPs and single labels are their own domain. */
function scopeKey(scope: 'domain' | 'host', hostname: string): string {
  const host = hostname.toLowerCase();
  return scope === 'host' ? host : (getDomain(host, { allowPrivateDomains: false }) ?? host);
}

function scopeTest(options: FilterOptions): ((url: URL, ref: SitemapRef) => boolean) | null {
  const scope = options.scope;
  if (scope === 'all') return null;
  const fixed = options.scopeRoot === null ? null : scopeKey(scope, new URL(options.scopeRoot).hostname);
  // Without a root (a job made before the filter knew it), the sitemap that lists the page stands in for it;
  // a local file has no host to compare with, so its own entries are kept.
  return (url, ref) => {
    if (fixed === null && ref.url.startsWith('file:')) return true;
    return scopeKey(scope, url.hostname) === (fixed ?? scopeKey(scope, new URL(ref.url).hostname));
  };
}

/** Every URL-level test of the options (the page's locale for the path test), or an empty list when they have none. */
function urlTests(options: FilterOptions): UrlTest[] {
  const tests: UrlTest[] = [];
  if (options.include.length > 0) {
    const includes = options.include.map(patternTest);
    tests.push((url) => includes.some((test) => test(url)));
  }
  if (options.exclude.length > 0) {
    const excludes = options.exclude.map(patternTest);
    tests.push((url) => !excludes.some((test) => test(url)));
  }
  if (options.pathPrefixes.length > 0) tests.push(prefixTest(options.pathPrefixes));
  return tests;
}

/**
 * Compiles filter options (validated with FilterOptionsSchema) into one predicate, or null when they keep
 * everything, so an unfiltered walk pays nothing. Pure: no I/O, no state between calls.
 */
export function compileFilter(input: FilterOptionsInput | undefined): EntryFilter | null {
  const options = FilterOptionsSchema.parse(input ?? {});
  const tests = urlTests(options);
  const locale = options.locales.length > 0 ? localeTest(options.locales) : null;
  const since = sinceTest(options);
  const scope = scopeTest(options);
  if (tests.length === 0 && locale === null && since === null && scope === null) return null;
  return (candidate, ref) => {
    if (since !== null && !since(candidate.lastmod)) return false;
    if (locale !== null && !locale(candidate.locale)) return false;
    if (tests.length === 0 && scope === null) return true;
    let url: URL;
    try {
      url = new URL(candidate.url);
    } catch {
      return false;
    }
    return tests.every((test) => test(url, candidate.locale)) && (scope === null || scope(url, ref));
  };
}
