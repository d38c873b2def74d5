import { FactoryError } from '../../core/errors.js';
import { printableUrl } from './site-url.js';

/**
 * Canonical identity of a sitemap URL, for the visited set: two spellings of one sitemap get one key.
 * Lower-case scheme and host, default port dropped (WHATWG parsing does both), fragment dropped,
 * empty query dropped, trailing slash dropped except for the bare `/` path. Query strings are kept: `?page=2`
 * is another sitemap.
 */
export function identityKey(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch (cause) {
    throw new FactoryError('invalid_url', `not an absolute URL: ${printableUrl(url.slice(0, 200))}`, { url, cause });
  }
  parsed.hash = '';
  // An empty query (`x.xml?`) is no query; assigning '' drops the dangling '?'.
  if (parsed.search === '') parsed.search = '';
  if (parsed.pathname.length > 1 && parsed.pathname.endsWith('/')) {
    parsed.pathname = parsed.pathname.replace(/\/+$/, '') || '/';
  }
  return parsed.href;
}

/** Same as identityKey, but `null` for a URL that cannot be parsed (for dedupe of untrusted input). */
export function tryIdentityKey(url: string): string | null {
  try {
    return identityKey(url);
  } catch {
    return null;
  }
}
