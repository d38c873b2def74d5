import type { SitemapEntry } from '../lib/core/types.js';

/**
 * `JSON.stringify(entry)` for the entries a walk yields, with `lead` (`{"type":"url",` for NDJSON, `{` for JSON)
 * in place of the opening brace: the same text, written member by member. Stringifying each entry whole (and,
 * for NDJSON, a copy with `type` in front) was most of `--format ndjson|json`'s time on a 1M-URL walk. The members
 * are SitemapEntry's, in the order `toSitemapEntry` builds them. The fields the parser and the walk normalise
 * never need escaping and are quoted as they are: lastmod (a W3C datetime), changefreq (one of seven words), locale
 * (a language tag) and pathPrefix (a folder of a WHATWG pathname, percent-encoded); the URLs go through
 * JSON.stringify, and the nested arrays and news block are stringified whole when not empty.
 */
export function entryJson(entry: SitemapEntry, lead: string): string {
  const { lastmod, changefreq, priority, locale, pathPrefix } = entry;
  return (
    `${lead}"loc":${JSON.stringify(entry.loc)},"lastmod":${lastmod === null ? 'null' : `"${lastmod}"`}` +
    `,"changefreq":${changefreq === null ? 'null' : `"${changefreq}"`},"priority":${priority === null ? 'null' : String(priority)}` +
    `,"alternates":${list(entry.alternates)},"images":${list(entry.images)},"videos":${list(entry.videos)}` +
    `,"news":${entry.news === null ? 'null' : JSON.stringify(entry.news)}${sourceAndDepth(entry.source, entry.depth)}` +
    `,"locale":${locale === null ? 'null' : `"${locale}"`},"pathPrefix":${pathPrefix === null ? 'null' : `"${pathPrefix}"`}}`
  );
}

// Every entry of a sitemap has its source and depth: their text is made once per sitemap, not once per entry.
let lastSource: string | null = null;
let lastDepth = -1;
let lastText = '';
function sourceAndDepth(source: string, depth: number): string {
  if (source !== lastSource || depth !== lastDepth) {
    lastSource = source;
    lastDepth = depth;
    lastText = `,"source":${JSON.stringify(source)},"depth":${depth}`;
  }
  return lastText;
}

function list(values: readonly unknown[]): string {
  return values.length === 0 ? '[]' : JSON.stringify(values);
}
