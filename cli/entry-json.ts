import type { SitemapEntry } from '../lib/index.js';
import { frequencyPriorityCache } from './frequency-priority.js';
import { ascii, type RowBytes } from './row-bytes.js';

/** The opening of an NDJSON `url` row (`{ type: 'url', ...entry }` stringified), up to the loc's value. */
export const NDJSON_URL_LEAD = ascii('{"type":"url","loc":');
/** The opening of a `--format json` element (the entry stringified), up to the loc's value. */
export const JSON_ENTRY_LEAD = ascii('{"loc":');

// The constant parts of a row, each as few pieces as the common case allows (every piece is a call and a bounds check).
const LASTMOD = ascii(',"lastmod":');
const NO_LASTMOD = ascii(',"lastmod":null');
const ALTERNATES = ascii(',"alternates":');
const IMAGES = ascii(',"images":');
const VIDEOS = ascii(',"videos":');
const NEWS = ascii(',"news":');
const NO_MEDIA = ',"alternates":[],"images":[],"videos":[],"news":null';
const NULL = ascii('null');
const EMPTY_LIST = ascii('[]');

/**
 * Writes `JSON.stringify(entry)` for an entry a walk yields, with `lead` (NDJSON_URL_LEAD or JSON_ENTRY_LEAD) in
 * place of the opening up to the loc, member by member into `rows`: stringifying each entry whole (and, for NDJSON,
 * a copy with `type` in front), joining and encoding the strings was most of `--format ndjson|json`'s time on a
 * 1M-URL walk. The members are SitemapEntry's, in the order `toSitemapEntry` builds them; every string goes through
 * JSON's escaping, the nested arrays and news block are stringified whole when not empty (rare). A plain entry (no
 * media, no locale) is five pieces: the lead, the loc, the lastmod, its changefreq and priority, and the rest.
 */
export function writeEntryJson(rows: RowBytes, entry: SitemapEntry, lead: Uint8Array): void {
  const { lastmod, alternates, images, videos, news, locale } = entry;
  rows.bytes(lead);
  rows.jsonString(entry.loc);
  if (lastmod === null) rows.bytes(NO_LASTMOD);
  else {
    rows.bytes(LASTMOD);
    rows.jsonString(lastmod);
  }
  rows.bytes(frequencyAndPriority(entry.changefreq, entry.priority));
  const plain = alternates.length === 0 && images.length === 0 && videos.length === 0 && news === null;
  const tail = tailOf(entry.source, entry.depth, entry.pathPrefix);
  if (plain && locale === null) return rows.bytes(tail.plainNoLocale);
  if (!plain) {
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
  if (locale === null) return rows.bytes(tail.richNoLocale);
  rows.bytes(plain ? tail.plainSource : tail.richSource);
  rows.jsonString(locale);
  rows.bytes(tail.pathPrefix);
}

// A row's changefreq and priority members. JSON has no NaN or Infinity: JSON.stringify writes null for them, as it does
// for a null priority.
const frequencyAndPriority = frequencyPriorityCache(
  (changefreq, priority) => `,"changefreq":${JSON.stringify(changefreq)},"priority":${JSON.stringify(priority)}`,
);

/** The members after the news block (or before it, for `plainSource`), for one source, depth and path prefix. */
interface Tail {
  /** No media, no locale: from the media members to the closing brace. */
  plainNoLocale: Uint8Array;
  /** After the media members, no locale: from the source to the closing brace. */
  richNoLocale: Uint8Array;
  /** Up to the locale's value, with (plain) or without (rich) the empty media members in front. */
  plainSource: Uint8Array;
  richSource: Uint8Array;
  /** After the locale's value. */
  pathPrefix: Uint8Array;
}

// Every entry of a sitemap has its source and depth, and most share their root folder with many others: the bytes
// of the row's end are made once per sitemap and folder (bounded: cleared when full), not once per entry.
let tailSource: string | null = null;
let tailDepth = -1;
const tails = new Map<string | null, Tail>();
function tailOf(source: string, depth: number, pathPrefix: string | null): Tail {
  if (source !== tailSource || depth !== tailDepth || tails.size >= 64) {
    tailSource = source;
    tailDepth = depth;
    tails.clear();
  }
  let tail = tails.get(pathPrefix);
  if (tail === undefined) {
    const rich = `,"source":${JSON.stringify(source)},"depth":${depth},"locale":`;
    const prefix = `,"pathPrefix":${JSON.stringify(pathPrefix)}}`;
    tail = {
      plainNoLocale: Buffer.from(`${NO_MEDIA}${rich}null${prefix}`, 'utf8'),
      richNoLocale: Buffer.from(`${rich}null${prefix}`, 'utf8'),
      plainSource: Buffer.from(`${NO_MEDIA}${rich}`, 'utf8'),
      richSource: Buffer.from(rich, 'utf8'),
      pathPrefix: Buffer.from(prefix, 'utf8'),
    };
    tails.set(pathPrefix, tail);
  }
  return tail;
}

function list(rows: RowBytes, values: readonly unknown[]): void {
  // JSON.stringify's text is ASCII but for characters it leaves as they are, which `text` encodes as UTF-8.
  if (values.length === 0) rows.bytes(EMPTY_LIST);
  else rows.text(JSON.stringify(values));
}
