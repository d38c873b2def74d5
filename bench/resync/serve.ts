// The re-sync benchmark's tree in its own process: the 1M-URL bench tree cut into many children (so 1% of them is a
// whole number), answering ETag / Last-Modified and 304s, whose children can be changed between runs, and which
// counts every byte it writes (headers included). Control routes: POST /bench/_change?children=1,2 (those children
// get new content, a new ETag, Last-Modified and index lastmod), POST /bench/_lastmod?on=0|1 (index lastmods listed
// or not), GET /bench/_bytes (bytes written so far).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { parseArgs } from 'node:util';
import { benchChildEncoding, benchChildPath, encodeBenchChild } from '../../test/sites/bench-tree.js';
import { startLoopbackServer, type CannedResponse } from '../../lib/demo/loopback-server.js';
import { sendBytes, wireHeaders } from '../../lib/demo/wire.js';
import { READY_MARKER } from '../harness/protocol.js';

const { values } = parseArgs({ options: { children: { type: 'string' }, 'per-child': { type: 'string' } } });
const children = Number(values.children ?? 200);
const perChild = Number(values['per-child'] ?? 5_000);

/** A child as served now: its revision (0 at start) and encoded bytes. */
interface Child {
  revision: number;
  bytes: Buffer;
}

const state = { lastmodListed: true, children: new Map<number, Child>() };
const sockets: Socket[] = [];

// A revised child has other page URLs (a `/rN` folder before the catalogue): a change the final URL set must show.
const originOf = (origin: string, revision: number) => (revision === 0 ? origin : `${origin}/r${revision}`);
const etagOf = (i: number, child: Child) => `"c${i}-r${child.revision}"`;
const lastModifiedOf = (child: Child) => new Date(Date.UTC(2024, 5, 1 + child.revision)).toUTCString();
const lastmodOf = (child: Child) => new Date(Date.UTC(2024, 5, 1 + child.revision)).toISOString().slice(0, 10);

function indexText(origin: string): string {
  const items = [...state.children].map(([i, child]) => {
    const lastmod = state.lastmodListed ? `<lastmod>${lastmodOf(child)}</lastmod>` : '';
    return `  <sitemap><loc>${origin}${benchChildPath(i)}</loc>${lastmod}</sitemap>\n`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${items.join('')}</sitemapindex>\n`;
}

async function change(origin: string, list: number[]): Promise<void> {
  for (const i of list) {
    const child = state.children.get(i);
    if (!child) continue;
    const revision = child.revision + 1;
    state.children.set(i, { revision, bytes: await encodeBenchChild(originOf(origin, revision), i, perChild) });
  }
}

function serveChild(request: IncomingMessage, response: ServerResponse, i: number): void {
  const child = state.children.get(i);
  if (!child) return void response.writeHead(404).end();
  const validators = { etag: etagOf(i, child), 'last-modified': lastModifiedOf(child) };
  const ifNoneMatch = request.headers['if-none-match'];
  const fresh = ifNoneMatch !== undefined ? ifNoneMatch === validators.etag : request.headers['if-modified-since'] === validators['last-modified'];
  if (fresh) return void response.writeHead(304, validators).end();
  sendBytes(request, response, child.bytes, { ...wireHeaders(benchChildEncoding(i), 'application/xml'), ...validators });
}

async function route(origin: string, request: IncomingMessage, response: ServerResponse): Promise<CannedResponse | null | 'handled'> {
  const url = new URL(request.url ?? '/', origin);
  if (url.pathname === '/bench/index.xml') return { headers: { 'content-type': 'application/xml' }, body: indexText(origin) };
  if (url.pathname === '/bench/_bytes') return { body: String(sockets.reduce((sum, socket) => sum + socket.bytesWritten, 0)) };
  if (url.pathname === '/bench/_change') {
    await change(origin, (url.searchParams.get('children') ?? '').split(',').filter(Boolean).map(Number));
    return { body: 'ok' };
  }
  if (url.pathname === '/bench/_lastmod') {
    state.lastmodListed = url.searchParams.get('on') !== '0';
    return { body: 'ok' };
  }
  const match = /^\/bench\/child-(\d{3})\.xml(\.gz)?$/.exec(url.pathname);
  const i = match ? Number(match[1]) : -1;
  if (i < 0 || url.pathname !== benchChildPath(i)) return null;
  serveChild(request, response, i);
  return 'handled';
}

let origin = '';
const server = await startLoopbackServer((request, response) => route(origin, request, response));
origin = server.origin;
server.server.on('connection', (socket: Socket) => sockets.push(socket));
for (let i = 0; i < children; i += 1) state.children.set(i, { revision: 0, bytes: await encodeBenchChild(origin, i, perChild) });
process.stdout.write(
  `${READY_MARKER}${JSON.stringify({ indexUrl: server.url('/bench/index.xml'), expectedUrls: children * perChild, cachedChildren: children, xmlBytes: 0 })}\n`,
);
const stop = () => void server.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
