// A deliberately naive crawler for checking the generated sites: raw HTTP, gunzip by magic bytes,
// regular expressions over the text. It shares no code with the engine, so the two can check each other.
import { get } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import { gunzipSync } from 'node:zlib';

/** A response exactly as it came off the wire (no transfer decoding). */
export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** GET (or HEAD) without any decoding, so tests see the bytes a client receives. */
export function rawGet(url: string, method = 'GET'): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const request = get(url, { method, headers: { 'accept-encoding': 'gzip' } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
      response.on('error', reject);
    });
    request.on('error', reject);
  });
}

/** Whether bytes start with the gzip magic. */
export const isGzip = (bytes: Buffer): boolean => bytes[0] === 0x1f && bytes[1] === 0x8b;

/** The text of a body, gunzipped as many times as it is gzipped. */
export function decodeBody(bytes: Buffer): string {
  let current = bytes;
  while (isGzip(current)) current = gunzipSync(current);
  return current.toString('utf8');
}

const CDATA = /^<!\[CDATA\[([\s\S]*)\]\]>$/;
const clean = (text: string): string => text.trim().replace(CDATA, '$1').trim();

function tagTexts(text: string, tag: string): string[] {
  const pattern = new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, 'g');
  return [...text.matchAll(pattern)].map((match) => clean(match[1] ?? ''));
}

/** Page URLs of one sitemap body: locs (by the file's own prefix), alternates, feed links, text lines. */
export function pageUrlsOf(text: string): string[] {
  if (/<rss[\s>]/.test(text)) return [...text.matchAll(/<item>[\s\S]*?<link>([^<]*)<\/link>/g)].map((m) => clean(m[1] ?? ''));
  if (/<feed[\s>]/.test(text)) return [...text.matchAll(/<entry>[\s\S]*?<link[^>]*href="([^"]*)"/g)].map((m) => m[1] ?? '');
  const root = /<(\w+:)?urlset[\s>]/.exec(text);
  if (!root)
    return text
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter(Boolean);
  const prefix = root[1] ?? '';
  const alternates = [...text.matchAll(/<\w+:link rel="alternate" hreflang="[^"]*" href="([^"]*)"/g)].map((m) => m[1] ?? '');
  return [...tagTexts(text, `${prefix}loc`), ...alternates];
}

/** Child sitemap URLs of an index body, or null when the body is not an index. */
export function childrenOf(text: string): string[] | null {
  const root = /<(\w+:)?sitemapindex[\s>]/.exec(text);
  return root ? tagTexts(text, `${root[1] ?? ''}loc`) : null;
}

/** What the naive walk saw. */
export interface IndependentWalk {
  pages: Set<string>;
  entries: number;
  sitemaps: string[];
  failures: string[];
  cycleRefs: string[];
}

// Same idea as the engine's identity key, written independently: scheme and host lower-cased by URL, slash dropped.
const keyOf = (url: string): string => new URL(url).href.replace(/(.)\/+$/, '$1');

/** Walks sitemaps from `starts` one at a time, every distinct sitemap once. */
export async function independentWalk(starts: string[]): Promise<IndependentWalk> {
  const walk: IndependentWalk = { pages: new Set(), entries: 0, sitemaps: [], failures: [], cycleRefs: [] };
  const seen = new Set(starts.map(keyOf));
  const queue = [...starts];
  for (let url = queue.shift(); url !== undefined; url = queue.shift()) {
    const response = await rawGet(url);
    if (response.status !== 200) {
      walk.failures.push(url);
      continue;
    }
    walk.sitemaps.push(url);
    const text = decodeBody(response.body);
    const children = childrenOf(text);
    for (const child of children ?? []) {
      if (seen.has(keyOf(child))) walk.cycleRefs.push(child);
      else {
        seen.add(keyOf(child));
        queue.push(child);
      }
    }
    if (children) continue;
    const urls = pageUrlsOf(text);
    for (const page of urls) walk.pages.add(page);
    walk.entries += /<(\w+:)?urlset[\s>]/.test(text) ? (text.match(/<(\w+:)?url>/g)?.length ?? 0) : urls.length;
  }
  return walk;
}
