/** Namespace URIs of the sitemap protocol and Google's extensions. */
export const NS = {
  sitemap: 'http://www.sitemaps.org/schemas/sitemap/0.9',
  xhtml: 'http://www.w3.org/1999/xhtml',
  image: 'http://www.google.com/schemas/sitemap-image/1.1',
  video: 'http://www.google.com/schemas/sitemap-video/1.1',
  news: 'http://www.google.com/schemas/sitemap-news/0.9',
} as const;

/** The prefix a file uses for each namespace; `''` is the default namespace. */
export type Prefixes = Record<keyof typeof NS, string>;

/** What most generators write. */
export const STANDARD_PREFIXES: Prefixes = { sitemap: '', xhtml: 'xhtml', image: 'image', video: 'video', news: 'news' };

/** Legal but unusual prefixes: a parser that matches `image:loc` literally misses (or mistakes) these. */
export const ODD_PREFIXES: Prefixes = { sitemap: 'sm', xhtml: 'xl', image: 'pic', video: 'v', news: 'n' };

/** A qualified name: `prefix:local`, or `local` in the default namespace. */
export function qname(prefix: string, local: string): string {
  return prefix ? `${prefix}:${local}` : local;
}

/** `xmlns` declarations for the namespaces a file uses. */
export function xmlnsAttributes(prefixes: Prefixes, used: ReadonlyArray<keyof typeof NS>): string {
  return used.map((key) => ` ${prefixes[key] ? `xmlns:${prefixes[key]}` : 'xmlns'}="${NS[key]}"`).join('');
}

/** A deterministic W3C date for entry `i`: dates vary, some carry a time, as real sitemaps do. */
export function lastmodFor(i: number): string {
  const month = String(1 + (i % 12)).padStart(2, '0');
  const day = String(1 + (i % 28)).padStart(2, '0');
  return i % 3 === 0 ? `2024-${month}-${day}T08:${String(i % 60).padStart(2, '0')}:00+00:00` : `2024-${month}-${day}`;
}
