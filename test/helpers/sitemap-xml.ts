/** A `<urlset>` document with one `<url><loc>` per URL (the extra XML, if any, goes inside every `<url>`). */
export function urlsetXml(locs: string[], extra: (loc: string, index: number) => string = () => ''): string {
  const body = locs.map((loc, index) => `<url><loc>${loc}</loc>${extra(loc, index)}</url>`).join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${body}\n</urlset>\n`;
}

/** A `<sitemapindex>` listing the given sitemap URLs. */
export function indexXml(children: string[]): string {
  const body = children.map((loc) => `<sitemap><loc>${loc}</loc></sitemap>`).join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${body}\n</sitemapindex>\n`;
}

/** `count` distinct page URLs under `origin`, e.g. https://x/p/0 ... */
export function pageUrls(origin: string, count: number, prefix = 'p'): string[] {
  return Array.from({ length: count }, (_, index) => `${origin}/${prefix}/${index}`);
}

/** Collects an async generator of batches into one flat array (tests only: real callers stream). */
export async function collect<T>(batches: AsyncIterable<T[]>): Promise<T[]> {
  const all: T[] = [];
  for await (const batch of batches) all.push(...batch);
  return all;
}

export const XML = { 'content-type': 'application/xml' };
