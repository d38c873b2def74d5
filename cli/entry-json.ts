import type { SitemapEntry } from '../lib/factory/types.js';

/**
 * `JSON.stringify(entry)` for the entries a walk yields, with `lead` (`{"type":"url",` for NDJSON, `{` for JSON)
 * in place of the opening brace: the same text, written member by member. Stringifying each entry whole (and,
 * for NDJSON, a copy with `type` in front) was most of `--format ndjson|json`'s time on a 1M-URL walk. The members
 * are SitemapEntry's, in the order `toSitemapEntry` builds them; strings still go through JSON.stringify, so their
 * escaping is the standard's, and the nested arrays and news block are stringified whole when not empty.
 */
export function entryJson(entry: SitemapEntry, lead: string): string {
  return (
    `${lead}"loc":${JSON.stringify(entry.loc)},"lastmod":${nullable(entry.lastmod)},"changefreq":${nullable(entry.changefreq)}` +
    `,"priority":${entry.priority === null ? 'null' : JSON.stringify(entry.priority)},"alternates":${list(entry.alternates)}` +
    `,"images":${list(entry.images)},"videos":${list(entry.videos)},"news":${entry.news === null ? 'null' : JSON.stringify(entry.news)}` +
    `,"source":${JSON.stringify(entry.source)},"depth":${JSON.stringify(entry.depth)},"locale":${nullable(entry.locale)},"pathPrefix":${nullable(entry.pathPrefix)}}`
  );
}

function nullable(value: string | null): string {
  return value === null ? 'null' : JSON.stringify(value);
}

function list(values: readonly unknown[]): string {
  return values.length === 0 ? '[]' : JSON.stringify(values);
}
