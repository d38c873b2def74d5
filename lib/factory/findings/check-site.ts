// `check`: a site's (or one sitemap's) findings, from a walk over every entry as its sitemaps list them.
import { isFactoryError, type ErrorKind } from '../../core/errors.js';
import type { ParsedUrl, SitemapEntry, SitemapRef } from '../../core/types.js';
import { robotsOf } from '../discovery/robots.js';
import { isSiteRoot, toSitemapEntry, walkEvents, type WalkCallOptions } from '../sitemap.js';
import type { ItemMapper } from '../walk/sitemap-reader.js';
import type { SiteFacts } from './entry-checks.js';
import type { SiteCheck } from './site-check.js';
import { SiteInspector, type RootSource } from './site-inspector.js';

const REFUSED_INPUT = new Set<ErrorKind>(['invalid_url', 'blocked_ssrf']);

/** Every entry as listed, duplicates included (the walk's own mappers keep one per loc): the findings count them. */
const everyEntry = (): ItemMapper<SitemapEntry> => (pages: readonly ParsedUrl[], ref: SitemapRef, out: SitemapEntry[]) => {
  for (const parsed of pages) out.push(toSitemapEntry(parsed, ref));
};

/**
 * Checks a site's sitemaps (a root URL: discovered from robots.txt, the home page, then the well-known paths) or one
 * sitemap and what it lists. Each sitemap is read once, its entries judged as they stream by. Nothing to check
 * (robots.txt unreachable, no sitemap) is a finding and a root that fails a failed sitemap; a URL refused as input
 * (`invalid_url`, `blocked_ssrf`) is thrown.
 */
export async function checkSite(url: string, options: WalkCallOptions & { now?: () => Date } = {}): Promise<SiteCheck> {
  const now = options.now ?? (() => new Date());
  const checkedAt = now();
  let inspector: SiteInspector | null = null;
  const start = (rootUrl: string, source: RootSource, facts: Omit<SiteFacts, 'checkedAt'>) =>
    (inspector = new SiteInspector(rootUrl, source, { ...facts, checkedAt: checkedAt.getTime() }));
  const local = options.readLocalFiles === true && url.startsWith('file:');
  const root = !local && isSiteRoot(url);
  const events = walkEvents(
    url,
    {
      ...options,
      onDiscovery: (found) => {
        options.onDiscovery?.(found);
        start(found.rootUrl, found.source, { rootHost: new URL(found.rootUrl).host, robotsRules: robotsOf(found.robots).rules });
      },
    },
    () => everyEntry,
  );
  const started = () => inspector ?? start(url, root ? 'none' : 'given', { rootHost: local ? null : new URL(url).host, robotsRules: [] });
  try {
    for await (const event of events) started().see(event);
  } catch (error) {
    // What the caller gave is refused (not a URL, a private address): that is bad input, not a finding of the site.
    if (!isFactoryError(error) || (inspector === null && REFUSED_INPUT.has(error.kind))) throw error;
    started().failed(error);
  }
  return started().report(checkedAt);
}
