// The sitemaps a site's home page declares: `<link rel="sitemap" href="...">` in its head (a convention of static
// site generators and some CMSs, where robots.txt says nothing). Read like robots.txt: capped, within the same
// request options and deadline, and a page that does not answer is no sitemap, never a failure.
import type { WalkOptions } from '../../core/limits.js';
import { readTextCapped, safeRequest } from '../fetch/index.js';
import { robotsRequestOptions } from '../fetch/request-options.js';
import { createLogger } from '../../utils/logger.js';

const log = createLogger('factory:discovery');

/** The head is at the top: the first 256 KiB of a home page hold it on any real site. */
const HOME_PAGE_BYTES = 256 * 1024;
const LINK_TAG = /<link\b[^>]*>/gi;

/** The value of one attribute of a tag's text, unquoted, or null. */
function attribute(tag: string, name: string): string | null {
  const match = new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s"'>]+))`, 'i').exec(tag);
  return match ? (match[1] ?? match[2] ?? match[3] ?? '').trim() : null;
}

/** The absolute URLs of the `<link rel="sitemap">` tags of an HTML page, in order, without duplicates. */
export function sitemapLinksOf(html: string, pageUrl: string): string[] {
  const found: string[] = [];
  for (const [tag] of html.matchAll(LINK_TAG)) {
    const rel = attribute(tag, 'rel');
    const href = attribute(tag, 'href');
    if (rel === null || href === null || href === '' || !rel.toLowerCase().split(/\s+/).includes('sitemap')) continue;
    let url: URL;
    try {
      url = new URL(href.replace(/&amp;/g, '&'), pageUrl);
    } catch {
      continue;
    }
    if ((url.protocol === 'http:' || url.protocol === 'https:') && !found.includes(url.href)) found.push(url.href);
  }
  return found;
}

/** The sitemap links of the site's home page, or [] when it does not answer 2xx HTML (a cancellation is thrown). */
export async function homePageSitemapLinks(rootUrl: string, options: WalkOptions, signal?: AbortSignal): Promise<string[]> {
  try {
    const response = await safeRequest(rootUrl, { ...robotsRequestOptions(options, signal), accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.1' });
    const type = response.headers.get('content-type') ?? '';
    if (response.status < 200 || response.status >= 300 || !/html/i.test(type)) {
      await response.discard();
      return [];
    }
    const { text } = await readTextCapped(response, HOME_PAGE_BYTES);
    const links = sitemapLinksOf(text, response.url);
    log.info({ event: 'home_page_read', url: rootUrl, sitemaps: links.length }, 'home page read for sitemap links');
    return links;
  } catch (error) {
    if (signal?.aborted) throw error;
    log.info({ event: 'home_page_unread', url: rootUrl, reason: error instanceof Error ? error.message : String(error) }, 'home page not read');
    return [];
  }
}
