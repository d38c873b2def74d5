import { getDomain } from 'tldts';
import { classifySegment, leadingSegments, normaliseHreflang } from '../scope/locale.js';
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

type UrlTest = (url: URL) => boolean;

/** A glob (path-only when it starts with `/`) or `/regex/` as a linear-time test over a parsed URL. */
function patternTest(pattern: string): UrlTest {
  const test = compilePattern(pattern);
  if (isRegexLiteral(pattern) || !pattern.startsWith('/')) return (url) => test(url.href);
  return (url) => test(`${url.pathname}${url.search}`);
}

/** The path without a leading locale folder (`/en-us/docs/x` -> `/docs/x`), or null when it has none. */
function pathWithoutLocale(pathname: string): string | null {
  const [first] = leadingSegments(pathname, 1);
  if (first === undefined || classifySegment(first.name)?.kind !== 'locale') return null;
  return pathname.slice(first.name.length + 1) || '/';
}

function prefixTest(prefixes: string[]): UrlTest {
  const wanted = prefixes.map((prefix) => `/${prefix.replace(/\*+$/, '').replace(/^\/+/, '')}`);
  return (url) => {
    const bare = pathWithoutLocale(url.pathname);
    return wanted.some((prefix) => url.pathname.startsWith(prefix) || (bare !== null && bare.startsWith(prefix)));
  };
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

/** Every URL-level test of the options, or an empty list when they have none. */
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
    return tests.every((test) => test(url)) && (scope === null || scope(url, ref));
  };
}
