import type { SitemapEntry } from '../lib/index.js';
import { ascii, type RowBytes } from './row-bytes.js';

/** The opening of an NDJSON `url` row (`{ type: 'url', ...entry }` stringified), up to the loc's value. */
export const NDJSON_URL_LEAD = ascii('{"type":"url","loc":');
/** The opening of a `--format json` element (the entry stringified), up to the loc's value. */
export const JSON_ENTRY_LEAD = ascii('{"loc":');

// The constant parts of a row, each as few pieces as the common case allows (every piece is a call and a bounds check).
const LASTMOD = ascii(',"lastmod":');
const NO_LASTMOD = ascii(',"lastmod":null');
const NO_CHANGEFREQ = ascii(',"changefreq":null');
const NO_PRIORITY = ascii(',"priority":null');
const ALTERNATES = ascii(',"alternates":');
const IMAGES = ascii(',"images":');
const VIDEOS = ascii(',"videos":');
const NEWS = ascii(',"news":');
const NO_MEDIA = ',"alternates":[],"images":[],"videos":[],"news":null';
const NO_LOCALE = ascii('null,"pathPrefix":');
const PATH_PREFIX = ascii(',"pathPrefix":');
const NULL = ascii('null');
const EMPTY_LIST = ascii('[]');
const NULL_CLOSE = ascii('null}');

/**
 * Writes `JSON.stringify(entry)` for an entry a walk yields, with `lead` (NDJSON_URL_LEAD or JSON_ENTRY_LEAD) in
 * place of the opening up to the loc, member by member into `rows`: stringifying each entry whole (and, for NDJSON,
 * a copy with `type` in front), joining and encoding the strings was most of `--format ndjson|json`'s time on a
 * 1M-URL walk. The members are SitemapEntry's, in the order `toSitemapEntry` builds them; every string goes through
 * JSON's escaping, the nested arrays and news block are stringified whole when not empty (rare).
 */
export function writeEntryJson(rows: RowBytes, entry: SitemapEntry, lead: Uint8Array): void {
  const { lastmod, changefreq, priority, alternates, images, videos, news, locale, pathPrefix } = entry;
  rows.bytes(lead);
  rows.jsonString(entry.loc);
  if (lastmod === null) rows.bytes(NO_LASTMOD);
  else {
    rows.bytes(LASTMOD);
    rows.jsonString(lastmod);
  }
  rows.bytes(changefreq === null ? NO_CHANGEFREQ : changefreqBytes(changefreq));
  rows.bytes(priority === null ? NO_PRIORITY : priorityBytes(priority));
  const plain = alternates.length === 0 && images.length === 0 && videos.length === 0 && news === null;
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
  rows.bytes(sourceAndDepth(entry.source, entry.depth, plain));
  if (locale === null) rows.bytes(NO_LOCALE);
  else {
    rows.jsonString(locale);
    rows.bytes(PATH_PREFIX);
  }
  rows.bytes(pathPrefix === null ? NULL_CLOSE : pathPrefixBytes(pathPrefix));
}

// changefreq is one of seven words: each one's member is encoded once.
const changefreqs = new Map<string, Uint8Array>();
function changefreqBytes(changefreq: string): Uint8Array {
  let bytes = changefreqs.get(changefreq);
  if (bytes === undefined) {
    if (changefreqs.size >= 64) changefreqs.clear();
    bytes = Buffer.from(`,"changefreq":${JSON.stringify(changefreq)}`, 'utf8');
    changefreqs.set(changefreq, bytes);
  }
  return bytes;
}

// Entries in a row mostly share their root folder: the last one's bytes (with the closing brace) are kept.
let lastPrefix: string | null = null;
let lastPrefixBytes: Uint8Array = new Uint8Array(0);
function pathPrefixBytes(pathPrefix: string): Uint8Array {
  if (pathPrefix !== lastPrefix) {
    lastPrefix = pathPrefix;
    lastPrefixBytes = Buffer.from(`${JSON.stringify(pathPrefix)}}`, 'utf8');
  }
  return lastPrefixBytes;
}

// A sitemap's priorities are a handful of values: each one's member is encoded once (bounded: cleared when full).
const priorities = new Map<number, Uint8Array>();
function priorityBytes(priority: number): Uint8Array {
  let bytes = priorities.get(priority);
  if (bytes === undefined) {
    if (priorities.size >= 256) priorities.clear();
    // JSON has no NaN or Infinity: JSON.stringify writes null for them.
    bytes = ascii(`,"priority":${Number.isFinite(priority) ? String(priority) : 'null'}`);
    priorities.set(priority, bytes);
  }
  return bytes;
}

function list(rows: RowBytes, values: readonly unknown[]): void {
  // JSON.stringify's text is ASCII but for characters it leaves as they are, which `text` encodes as UTF-8.
  if (values.length === 0) rows.bytes(EMPTY_LIST);
  else rows.text(JSON.stringify(values));
}

// Every entry of a sitemap has its source and depth: their bytes (with the empty media members before them when
// the entry has none, and the locale's name after) are made once per sitemap, not once per entry.
let lastSource: string | null = null;
let lastDepth = -1;
let lastPlain: Uint8Array = new Uint8Array(0);
let lastRich: Uint8Array = new Uint8Array(0);
function sourceAndDepth(source: string, depth: number, plain: boolean): Uint8Array {
  if (source !== lastSource || depth !== lastDepth) {
    lastSource = source;
    lastDepth = depth;
    const text = `,"source":${JSON.stringify(source)},"depth":${depth},"locale":`;
    lastRich = Buffer.from(text, 'utf8');
    lastPlain = Buffer.from(`${NO_MEDIA}${text}`, 'utf8');
  }
  return plain ? lastPlain : lastRich;
}
