import { demoPageUrls, namespacesOf, urlElement } from './demo-entries.js';
import type { DemoIndex, DemoLeaf, DemoPlan, DemoRef } from './demo-plan.js';
import { lastmodFor, ODD_PREFIXES, qname, STANDARD_PREFIXES, xmlnsAttributes } from './xml-names.js';

/** Entries per generated chunk: large enough for few writes, small enough to keep memory flat. */
const CHUNK_ENTRIES = 250;
const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n';

/** The URL an index writes for a reference, cycle variants included. */
export function refUrl(origin: string, ref: DemoRef): string {
  if (ref.variant === 'upper-scheme') return `${origin.replace(/^http/i, 'HTTP')}${ref.path}`;
  if (ref.variant === 'trailing-slash') return `${origin}${ref.path}/`;
  return `${origin}${ref.path}`;
}

/** A sitemap index, whole (indexes are small). */
export function* indexChunks(origin: string, node: DemoIndex): Iterable<string> {
  const p = node.odd ? ODD_PREFIXES : STANDARD_PREFIXES;
  const t = (local: string) => qname(p.sitemap, local);
  const items = node.children.map(
    (ref, k) =>
      `  <${t('sitemap')}>\n    <${t('loc')}>${refUrl(origin, ref)}</${t('loc')}>\n    <${t('lastmod')}>${lastmodFor(k)}</${t('lastmod')}>\n  </${t('sitemap')}>\n`,
  );
  yield `${XML_DECLARATION}<${t('sitemapindex')}${xmlnsAttributes(p, ['sitemap'])}>\n${items.join('')}</${t('sitemapindex')}>\n`;
}

function* inChunks(count: number, render: (i: number) => string): Iterable<string> {
  for (let start = 0; start < count; start += CHUNK_ENTRIES) {
    let chunk = '';
    for (let i = start; i < Math.min(count, start + CHUNK_ENTRIES); i += 1) chunk += render(i);
    yield chunk;
  }
}

/** A urlset leaf, generated a chunk of entries at a time. */
export function* urlsetChunks(origin: string, leaf: DemoLeaf): Iterable<string> {
  const p = leaf.odd ? ODD_PREFIXES : STANDARD_PREFIXES;
  const root = qname(p.sitemap, 'urlset');
  yield `${XML_DECLARATION}<${root}${xmlnsAttributes(p, namespacesOf(leaf))}>\n`;
  yield* inChunks(leaf.count, (i) => urlElement(origin, leaf, i, p));
  yield `</${root}>\n`;
}

/** A plain-text sitemap: one URL a line, CRLF as Windows-made files have it, a blank line at the end. */
export function* textChunks(origin: string, leaf: DemoLeaf): Iterable<string> {
  yield* inChunks(leaf.count, (i) => `${demoPageUrls(origin, leaf, i)[0]}\r\n`);
  yield '\r\n';
}

/** An RSS 2.0 feed: only item links are pages; the channel link is the home page. */
export function* rssChunks(origin: string, leaf: DemoLeaf): Iterable<string> {
  yield `${XML_DECLARATION}<rss version="2.0">\n<channel>\n  <title>Demo updates</title>\n  <link>${origin}/</link>\n  <description>Generated feed</description>\n`;
  yield* inChunks(leaf.count, (i) => {
    const link = demoPageUrls(origin, leaf, i)[0];
    return `  <item><title>Update ${i}</title><link>${link}</link><guid>${link}</guid><pubDate>Mon, 0${1 + (i % 9)} Jan 2024 10:00:00 GMT</pubDate></item>\n`;
  });
  yield '</channel>\n</rss>\n';
}

/** An Atom feed: entry links are pages; the feed's own links (home, self) are not. */
export function* atomChunks(origin: string, leaf: DemoLeaf): Iterable<string> {
  yield `${XML_DECLARATION}<feed xmlns="http://www.w3.org/2005/Atom">\n  <title>Demo atom</title>\n  <id>urn:demo:atom</id>\n  <updated>2024-06-01T00:00:00Z</updated>\n`;
  yield `  <link href="${origin}/"/>\n  <link rel="self" href="${origin}${leaf.path}"/>\n`;
  yield* inChunks(leaf.count, (i) => {
    const link = demoPageUrls(origin, leaf, i)[0] ?? '';
    return `  <entry><title>Entry ${i}</title><link rel="alternate" href="${link}"/><id>urn:demo:atom:${i}</id><updated>${lastmodFor(i).slice(0, 10)}T00:00:00Z</updated></entry>\n`;
  });
  yield '</feed>\n';
}

/** The chunks of any leaf, by kind. */
export function leafChunks(origin: string, leaf: DemoLeaf): Iterable<string> {
  if (leaf.kind === 'text') return textChunks(origin, leaf);
  if (leaf.kind === 'rss') return rssChunks(origin, leaf);
  if (leaf.kind === 'atom') return atomChunks(origin, leaf);
  return urlsetChunks(origin, leaf);
}

/**
 * robots.txt with a BOM and CRLF, three Sitemap lines in three spellings: the root index, a relative
 * line (the robots-only sitemap) and the root index again with another case, which discovery dedupes.
 */
export function robotsText(origin: string, plan: DemoPlan): string {
  const lines = [
    '\uFEFF# Crawler Factory demo site: generated on the fly, deterministic',
    'User-agent: *',
    'Disallow: /cart',
    '',
    `Sitemap: ${origin}${plan.rootIndex}`,
    `sitemap: ${plan.extra}`,
    `SITEMAP: ${origin.replace(/^http/i, 'HTTP')}${plan.rootIndex}`,
    '',
  ];
  return lines.join('\r\n');
}
