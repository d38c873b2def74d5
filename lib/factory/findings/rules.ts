import type { Severity } from './finding.js';

/**
 * Every rule the findings apply, with its severity and what it means: the one catalogue the checks, the docs and the
 * console read. The protocol (sitemaps.org) and the search engines' own documentation define them.
 */
export const RULES = {
  no_sitemap: { severity: 'error', about: 'robots.txt declares no sitemap and none answers at the well-known paths' },
  robots_unreachable: { severity: 'error', about: 'robots.txt does not answer (5xx, 429 or unreachable): crawlers read that as "disallow all"' },
  namespace: { severity: 'error', about: 'the root element is not in the sitemap namespace http://www.sitemaps.org/schemas/sitemap/0.9' },
  too_many_urls: { severity: 'error', about: 'more than 50,000 URLs (or child sitemaps) in one file: the rest is not read' },
  too_large: { severity: 'error', about: 'more than 50 MiB uncompressed' },
  not_utf8: { severity: 'error', about: 'an encoding other than UTF-8: the protocol requires UTF-8' },
  before_declaration: { severity: 'error', about: 'characters before the XML declaration (which must come first) or text before the root element' },
  relative_loc: { severity: 'error', about: 'locs that are not absolute URLs: search engines drop them' },
  invalid_loc: { severity: 'error', about: 'locs that are not http(s) URLs, are malformed or longer than 2,048 characters: dropped' },
  truncated: { severity: 'error', about: 'the document ends before its root element closes (a cut download or a broken file)' },
  cross_host: { severity: 'error', about: "locs on another host than the sitemap's, which the host's robots.txt does not allow" },
  outside_path: { severity: 'warning', about: "locs outside the sitemap's folder, which only a sitemap declared in robots.txt may list" },
  lastmod_invalid: { severity: 'warning', about: 'lastmod values that are not W3C datetimes: read as absent' },
  lastmod_future: { severity: 'warning', about: 'lastmod values in the future' },
  lastmod_same_instant: { severity: 'warning', about: 'every URL has the same lastmod instant: generated at request time, not when pages changed' },
  duplicate_loc: { severity: 'warning', about: 'locs listed more than once in the sitemap' },
  urlset_lists_sitemaps: { severity: 'warning', about: 'a urlset whose locs are sitemaps: they are read as pages, not followed; use a sitemapindex' },
  too_deep: { severity: 'warning', about: 'indexes nested deeper than the walk follows' },
  index_of_indexes: { severity: 'warning', about: 'a sitemap index listed by an index: search engines do not follow nested indexes' },
  redirected: { severity: 'warning', about: 'the sitemap URL redirects: list its final URL' },
  empty: { severity: 'warning', about: 'the sitemap lists no URLs' },
  robots_disallowed: { severity: 'warning', about: "locs the site's own robots.txt disallows" },
  hreflang_one_way: { severity: 'warning', about: 'hreflang alternates whose target does not point back' },
  mixed_variants: { severity: 'warning', about: 'locs on more than one variant of the site (http and https, www and the bare host)' },
  duplicate_across: { severity: 'notice', about: "locs listed by more than one of the site's sitemaps" },
  bom: { severity: 'notice', about: 'a byte order mark before the document' },
  content_type: { severity: 'notice', about: 'a Content-Type that does not say what the document is' },
  gzip_unnamed: { severity: 'notice', about: 'a gzip body with neither a .gz name nor a gzip Content-Encoding or Content-Type' },
  undeclared: { severity: 'notice', about: 'found at a well-known path or on the home page but not declared in robots.txt: add a Sitemap: line' },
} as const satisfies Record<string, { severity: Severity; about: string }>;

export type RuleId = keyof typeof RULES;
