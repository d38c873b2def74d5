import { RequestError } from '../core/errors.js';
import { assertSiteId } from '../inventory/sites.js';
import { assertSyncId } from '../inventory/syncs.js';

/** Mount point of the sites API: one function serves everything below it (vercel.json rewrites the sub-paths to it). */
export const SITES_BASE = '/api/factory/sites';

/** A request path below /api/factory/sites, with its ids validated. */
export type SitesPath =
  | { type: 'sites' }
  | { type: 'site'; siteId: string }
  | { type: 'sync'; siteId: string }
  | { type: 'sync-stop'; siteId: string }
  | { type: 'syncs'; siteId: string }
  | { type: 'sync-one'; siteId: string; syncId: string }
  | { type: 'urls'; siteId: string }
  | { type: 'urls-download'; siteId: string }
  | { type: 'sitemaps'; siteId: string }
  | { type: 'sitemap-one'; siteId: string; sitemapId: number }
  | { type: 'history'; siteId: string; url: string };

// The URL of `urls/{url}/history` is everything between the two words, percent-decoded once: it may hold `/` itself
// when a proxy decoded `%2F` on the way.
function historyUrl(raw: string): string {
  let url: string;
  try {
    url = decodeURIComponent(raw);
  } catch {
    throw new RequestError('bad_request', 'the URL in the history path is not percent-encoded properly');
  }
  if (!URL.canParse(url)) throw new RequestError('bad_request', 'the history path must hold an absolute, percent-encoded URL');
  return url;
}

/**
 * Parses `/api/factory/sites[/{siteId}[/sync[/stop] | /syncs[/{syncId}] | /sitemaps[/{sitemapId}] | /urls[/download |
 * /{url}/history]]]`; anything else is `not_found`.
 */
export function parseSitesPath(pathname: string): SitesPath {
  if (pathname !== SITES_BASE && !pathname.startsWith(`${SITES_BASE}/`)) throw new RequestError('not_found', `no route ${pathname}`);
  const rest = pathname.slice(SITES_BASE.length).replace(/^\/|\/$/g, '');
  if (rest === '') return { type: 'sites' };
  const history = /^([^/]+)\/urls\/(.+)\/history$/.exec(rest);
  if (history) return { type: 'history', siteId: assertSiteId(safeDecode(history[1]!)), url: historyUrl(history[2]!) };
  const [rawSite = '', ...tail] = rest.split('/');
  const siteId = assertSiteId(safeDecode(rawSite));
  const route = tail.join('/');
  if (route === '') return { type: 'site', siteId };
  if (route === 'sync') return { type: 'sync', siteId };
  if (route === 'sync/stop') return { type: 'sync-stop', siteId };
  if (route === 'syncs') return { type: 'syncs', siteId };
  if (route === 'urls') return { type: 'urls', siteId };
  if (route === 'urls/download') return { type: 'urls-download', siteId };
  if (route === 'sitemaps') return { type: 'sitemaps', siteId };
  if (tail.length === 2 && tail[0] === 'sitemaps') return { type: 'sitemap-one', siteId, sitemapId: sitemapIdOf(tail[1] ?? '') };
  if (tail.length === 2 && tail[0] === 'syncs') return { type: 'sync-one', siteId, syncId: assertSyncId(tail[1]) };
  throw new RequestError('not_found', `no route ${pathname}`);
}

function sitemapIdOf(segment: string): number {
  if (!/^\d{1,9}$/.test(segment))
    throw new RequestError('bad_request', `invalid sitemapId "${segment.slice(0, 40)}": a sitemap's id is the number its record gives`);
  return Number(segment);
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new RequestError('bad_request', 'invalid siteId');
  }
}
