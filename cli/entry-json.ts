import type { SitemapEntry } from '../lib/core/types.js';
import { ascii, type RowBytes } from './row-bytes.js';

/** The opening of an NDJSON `url` row (`{ type: 'url', ...entry }` stringified). */
export const NDJSON_URL_LEAD = ascii('{"type":"url",');
/** The opening of a `--format json` element (the entry stringified). */
export const JSON_ENTRY_LEAD = ascii('{');

const LOC = ascii('"loc":');
const LASTMOD = ascii(',"lastmod":');
const CHANGEFREQ = ascii(',"changefreq":');
const PRIORITY = ascii(',"priority":');
const ALTERNATES = ascii(',"alternates":');
const IMAGES = ascii(',"images":');
const VIDEOS = ascii(',"videos":');
const NEWS = ascii(',"news":');
const NO_MEDIA = ascii(',"alternates":[],"images":[],"videos":[],"news":null');
const LOCALE = ascii(',"locale":');
const PATH_PREFIX = ascii(',"pathPrefix":');
const NULL = ascii('null');
const EMPTY_LIST = ascii('[]');
const CLOSE = 0x7d;

/**
 * Writes `JSON.stringify(entry)` for an entry a walk yields, with `lead` (NDJSON_URL_LEAD or JSON_ENTRY_LEAD) in
 * place of the opening brace, member by member into `rows`: stringifying each entry whole (and, for NDJSON, a copy
 * with `type` in front) was most of `--format ndjson|json`'s time on a 1M-URL walk. The members are SitemapEntry's,
 * in the order `toSitemapEntry` builds them; every string goes through JSON's escaping, the nested arrays and news
 * block are stringified whole when not empty (rare).
 */
export function writeEntryJson(rows: RowBytes, entry: SitemapEntry, lead: Uint8Array): void {
  const { lastmod, changefreq, priority, alternates, images, videos, news, locale, pathPrefix } = entry;
  rows.bytes(lead);
  rows.bytes(LOC);
  rows.jsonString(entry.loc);
  rows.bytes(LASTMOD);
  nullableString(rows, lastmod);
  rows.bytes(CHANGEFREQ);
  nullableString(rows, changefreq);
  rows.bytes(PRIORITY);
  // JSON has no NaN or Infinity: JSON.stringify writes null for them.
  if (priority === null || !Number.isFinite(priority)) rows.bytes(NULL);
  else rows.number(priority);
  if (alternates.length === 0 && images.length === 0 && videos.length === 0 && news === null) rows.bytes(NO_MEDIA);
  else {
    rows.bytes(ALTERNATES);
    list(rows, alternates);
    rows.bytes(IMAGES);
    list(rows, images);
    rows.bytes(VIDEOS);
    list(rows, videos);
    rows.bytes(NEWS);
    if (news === null) rows.bytes(NULL);
    else rows.text(JSON.stringify(news));
  }
  rows.bytes(sourceAndDepth(entry.source, entry.depth));
  rows.bytes(LOCALE);
  nullableString(rows, locale);
  rows.bytes(PATH_PREFIX);
  nullableString(rows, pathPrefix);
  rows.byte(CLOSE);
}

function nullableString(rows: RowBytes, value: string | null): void {
  if (value === null) rows.bytes(NULL);
  else rows.jsonString(value);
}

function list(rows: RowBytes, values: readonly unknown[]): void {
  // JSON.stringify's text is ASCII but for characters it leaves as they are, which `text` encodes as UTF-8.
  if (values.length === 0) rows.bytes(EMPTY_LIST);
  else rows.text(JSON.stringify(values));
}

// Every entry of a sitemap has its source and depth: their bytes are made once per sitemap, not once per entry.
let lastSource: string | null = null;
let lastDepth = -1;
let lastBytes: Uint8Array = new Uint8Array(0);
function sourceAndDepth(source: string, depth: number): Uint8Array {
  if (source !== lastSource || depth !== lastDepth) {
    lastSource = source;
    lastDepth = depth;
    lastBytes = Buffer.from(`,"source":${JSON.stringify(source)},"depth":${depth}`, 'utf8');
  }
  return lastBytes;
}
