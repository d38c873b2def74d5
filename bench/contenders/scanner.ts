// The practical limit, not a sitemap reader: fetches the same tree (8 children in flight, gzip inflated)
// and counts `<loc>` with Buffer#indexOf alone. No XML, no validation, no entries: what is left is the
// cost of HTTP, gunzip and one memchr-style pass over the bytes.
import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { emitResult, targetUrl } from './result.js';

const LOC = Buffer.from('<loc>');
const END = Buffer.from('</loc>');

// Counts `<loc>` across chunks: the last few bytes of a chunk are carried so a split tag is still found.
async function countLocs(body: AsyncIterable<Buffer>, onLoc?: (loc: string) => void): Promise<number> {
  let count = 0;
  let carry = Buffer.alloc(0);
  for await (const chunk of body) {
    const data = carry.length === 0 ? chunk : Buffer.concat([carry, chunk]);
    let at = 0;
    let last = 0;
    for (;;) {
      const found = data.indexOf(LOC, at);
      if (found === -1) break;
      if (onLoc !== undefined) {
        const end = data.indexOf(END, found);
        if (end === -1) break;
        onLoc(data.toString('utf8', found + LOC.length, end));
      }
      count += 1;
      at = found + LOC.length;
      last = at;
    }
    carry = Buffer.from(data.subarray(Math.max(last, data.length - (onLoc === undefined ? LOC.length - 1 : 4096))));
  }
  return count;
}

async function open(url: string): Promise<AsyncIterable<Buffer>> {
  const response = await fetch(url);
  if (!response.ok || response.body === null) throw new Error(`${url}: HTTP ${response.status}`);
  const stream = Readable.fromWeb(response.body as import('node:stream/web').ReadableStream<Uint8Array>);
  return url.endsWith('.gz') ? stream.pipe(createGunzip()) : stream;
}

const url = targetUrl();
const started = performance.now();
const children: string[] = [];
await countLocs(await open(url), (loc) => children.push(loc));
let urls = 0;
let next = 0;
const worker = async () => {
  while (next < children.length) {
    const child = children[next++];
    if (child === undefined) continue;
    const found = await countLocs(await open(child)); // read before adding: `urls += await` would lose updates
    urls += found;
  }
};
await Promise.all(Array.from({ length: 8 }, worker));
emitResult({ urls, errors: 0, walkMs: performance.now() - started });
