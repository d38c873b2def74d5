import { isFactoryError } from '../../core/errors.js';
import { assertUrlAllowed, probeUrl } from '../fetch/index.js';
import type { WalkOptions } from '../../core/limits.js';
import { robotsRequestOptions } from '../fetch/request-options.js';
import { fetchRobotsTxt, isPathAllowed, robotsOf, type RobotsResult, type RobotsRule } from './robots.js';
import type { ReportedError, SitemapSource } from '../../core/types.js';
import { tryIdentityKey } from '../url/url-identity.js';
import { parseHttpUrl, parseSiteUrl } from '../url/site-url.js';
import { createLogger } from '../../utils/logger.js';
import { homePageSitemapLinks } from './home-page-links.js';

const log = createLogger('factory:discovery');

/**
 * Well-known sitemap paths tried in order when robots.txt and the home page name none; the first three are DESIGN's
 * contract. Together they cover the common generators: WordPress core (wp-sitemap.xml), Yoast and Rank Math
 * (sitemap_index.xml), All in One SEO, Shopify, Drupal, next-sitemap and most others (sitemap.xml), Gatsby, Magento's
 * media folder, and a news sitemap alone.
 */
export const FALLBACK_SITEMAP_PATHS = [
  'sitemap.xml',
  'sitemap_index.xml',
  'sitemap-index.xml',
  'sitemap.xml.gz',
  'wp-sitemap.xml',
  'sitemap.txt',
  'sitemap/sitemap-index.xml', // gatsby-plugin-sitemap's default
  'media/sitemap.xml', // Magento's when configured under media/
  'news-sitemap.xml',
  'sitemap-news.xml',
] as const;

/**
 * What discovery found and how: the sitemap URLs, where they came from (robots.txt, the home page's `<link
 * rel="sitemap">`, a well-known path, or nowhere), and what was skipped.
 */
export interface Discovery {
  rootUrl: string;
  sitemaps: string[];
  source: SitemapSource;
  /**
   * Set when the sitemaps were found on a variant of the root's host (`www.` added or removed, https for http) the
   * given root publishes none of: the site's canonical root, to give next time. Null otherwise.
   */
  canonicalRoot: string | null;
  robots: RobotsResult;
  problems: ReportedError[];
  requests: number;
}

/** Parses and checks a site root given by a user: absolute http(s) with a written host (`parseHttpUrl`). */
export const parseRootUrl = parseHttpUrl;

/** Candidate fallback URLs: under the root's own folder first (sub-path sites), then at the host root. */
export function fallbackCandidates(root: URL): string[] {
  const folder = root.pathname.endsWith('/') ? root.pathname : root.pathname.replace(/[^/]*$/, '');
  const bases = folder === '/' ? ['/'] : [folder, '/'];
  return bases.flatMap((base) => FALLBACK_SITEMAP_PATHS.map((path) => new URL(base + path, root.origin).href));
}

/** Keeps the robots `Sitemap:` URLs the SSRF policy allows; refused ones are reported, not fatal. */
function allowedSitemaps(urls: string[], options: WalkOptions, problems: ReportedError[]): string[] {
  return urls.filter((url) => {
    try {
      assertUrlAllowed(new URL(url), options.net);
      return true;
    } catch (error) {
      const kind = isFactoryError(error) ? error.kind : 'blocked_ssrf';
      const message = error instanceof Error ? error.message : String(error);
      problems.push({ kind, url, message, parent: null });
      log.warn({ event: 'robots_sitemap_refused', url, kind }, 'robots.txt Sitemap line skipped');
      return false;
    }
  });
}

/** Tries the fallback paths in order (HEAD, then GET where HEAD is refused); the first 2xx wins. */
async function probeFallbacks(
  root: URL,
  options: WalkOptions,
  context: { rules: RobotsRule[]; problems: ReportedError[]; signal?: AbortSignal; skip?: Set<string> },
) {
  let requests = 0;
  for (const candidate of fallbackCandidates(root)) {
    if (context.skip?.has(tryIdentityKey(candidate) ?? candidate)) continue;
    const path = new URL(candidate).pathname;
    if (!isPathAllowed(context.rules, path)) {
      context.problems.push({ kind: 'robots_forbidden', url: candidate, message: 'robots.txt disallows this path', parent: null });
      continue;
    }
    requests += 1;
    const answer = await probeUrl(candidate, robotsRequestOptions(options, context.signal)).catch((error: unknown) => {
      if (context.signal?.aborted || (isFactoryError(error) && error.kind === 'blocked_ssrf')) throw error;
      // A path that times out or drops the connection is not "absent": say so, then try the next one.
      const kind = isFactoryError(error) ? error.kind : 'fetch_failed';
      context.problems.push({ kind, url: candidate, message: error instanceof Error ? error.message : String(error), parent: null });
      return null;
    });
    if (answer && answer.status >= 200 && answer.status < 300) return { found: candidate, requests };
  }
  return { found: null, requests };
}

/** Discovery at one root: robots.txt, then its home page, then its well-known paths. */
async function discoverAt(root: URL, options: WalkOptions, signal?: AbortSignal): Promise<Discovery> {
  assertUrlAllowed(root, options.net);
  const robots = await fetchRobotsTxt(root.href, options, signal);
  const problems: ReportedError[] = [];
  const listed = allowedSitemaps(robotsOf(robots).sitemaps, options, problems);
  const base = { rootUrl: root.href, robots, problems, canonicalRoot: null };
  if (listed.length > 0) return { ...base, sitemaps: listed, source: 'robots', requests: 1 };
  const rules = robotsOf(robots).rules;
  // The home page, unless robots.txt keeps crawlers off it: its head may name the sitemaps robots.txt does not.
  const readHome = isPathAllowed(rules, root.pathname);
  const linked = readHome ? allowedSitemaps(await homePageSitemapLinks(root.href, options, signal), options, problems) : [];
  const asked = readHome ? 2 : 1;
  if (linked.length > 0) return { ...base, sitemaps: linked, source: 'home-page', requests: asked };
  const { found, requests } = await probeFallbacks(root, options, { rules, problems, ...(signal ? { signal } : {}) });
  if (found) {
    log.info({ event: 'sitemap_fallback_found', url: found, requests }, 'sitemap found at a well-known path');
    return { ...base, sitemaps: [found], source: 'fallback', requests: requests + asked };
  }
  return { ...base, sitemaps: [], source: 'none', requests: requests + asked };
}

/**
 * The other spellings of a site root worth a look when it publishes no sitemap: `www.` added or removed, and for an
 * http root the https ones too. None for an IP address or a single-label host (nothing to vary), nor a sub-path site.
 */
export function hostVariants(root: URL): URL[] {
  const host = root.hostname;
  if (root.pathname !== '/' || !host.includes('.') || /^[\d.]+$/.test(host) || host.startsWith('[')) return [];
  const other = host.startsWith('www.') ? host.slice(4) : `www.${host}`;
  const at = (protocol: string, name: string) => new URL(`${protocol}//${name}${root.port ? `:${root.port}` : ''}/`);
  const variants = [at(root.protocol, other)];
  if (root.protocol === 'http:') variants.push(at('https:', host), at('https:', other));
  return variants;
}

/**
 * Finds a site's sitemaps: robots.txt `Sitemap:` lines (RFC 9309), else the home page's `<link rel="sitemap">`, else
 * the first well-known path that answers 2xx; a root that publishes none of them has its host variants asked the same
 * (`canonicalRoot` says which one answered). Throws `robots_unreachable` (5xx, 429, unreachable: RFC 9309's
 * disallow-all), `blocked_ssrf` or `invalid_url` for the root given; a variant that fails is only not the answer.
 * `signal` cancels it between and during requests (the caller's reason is thrown).
 */
export async function discover(rootUrl: string, options: WalkOptions, signal?: AbortSignal): Promise<Discovery> {
  const root = parseSiteUrl(rootUrl, options.net);
  const found = await discoverAt(root, options, signal);
  if (found.source !== 'none') return found;
  let requests = found.requests;
  for (const variant of hostVariants(root)) {
    const there = await discoverAt(variant, options, signal).catch((error: unknown) => {
      if (signal?.aborted) throw error;
      log.debug(
        { event: 'host_variant_unread', url: variant.href, reason: error instanceof Error ? error.message : String(error) },
        'host variant did not answer',
      );
      return null;
    });
    if (there === null) continue;
    requests += there.requests;
    if (there.source === 'none') continue;
    log.info({ event: 'host_variant_found', url: root.href, canonicalRoot: variant.href, source: there.source }, 'sitemaps found on a host variant');
    return { ...there, problems: [...found.problems, ...there.problems], canonicalRoot: variant.href, requests };
  }
  log.warn({ event: 'no_sitemap_found', url: root.href, requests }, 'no sitemap in robots.txt, on the home page nor at the well-known paths');
  return { ...found, requests };
}

/**
 * A well-known sitemap to try when every robots.txt `Sitemap:` line failed (stale lines, development hosts):
 * the first fallback path that answers 2xx and is not one of the sitemaps already tried, or null.
 */
export async function fallbackAfterRobots(
  found: Pick<Discovery, 'rootUrl' | 'sitemaps' | 'robots'>,
  options: WalkOptions,
  signal?: AbortSignal,
): Promise<string | null> {
  const tried = new Set(found.sitemaps.map((url) => tryIdentityKey(url) ?? url));
  const context = { rules: robotsOf(found.robots).rules, problems: [], ...(signal ? { signal } : {}) };
  const root = new URL(found.rootUrl);
  const { found: candidate } = await probeFallbacks(root, options, { ...context, skip: tried });
  return candidate;
}

/**
 * The same, for a job resuming in another slice: robots.txt is read again for its rules (discovery's result is not
 * stored), and a robots.txt that no longer answers means no fallback.
 */
export async function fallbackAfterRobotsOf(rootUrl: string, tried: string[], options: WalkOptions, signal?: AbortSignal): Promise<string | null> {
  const robots = await fetchRobotsTxt(rootUrl, options, signal).catch((error: unknown) => {
    if (signal?.aborted) throw error;
    log.warn({ event: 'robots_refetch_failed', url: rootUrl, error: String(error) }, 'robots.txt did not answer again: no fallback');
    return null;
  });
  return robots === null ? null : fallbackAfterRobots({ rootUrl: parseRootUrl(rootUrl).href, sitemaps: tried, robots }, options, signal);
}
