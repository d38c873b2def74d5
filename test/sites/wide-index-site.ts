import type { ServerResponse } from 'node:http';
import { startLoopbackServer, type LoopbackServer } from '../../lib/demo/loopback-server.js';

const XML = { 'content-type': 'application/xml' };

/**
 * Wide indexes for the limits-at-scale test and bench (bench/wide-index.ts): a loopback site whose `/index.xml` lists `children` one-URL
 * children (`/c/N.xml` -> `/p/N`), and how much of the index it sent.
 */
export interface WideIndexSite {
  server: LoopbackServer;
  /** Bytes of the index written to the socket so far (a reader that stops early leaves most unsent). */
  indexBytesSent(): number;
  /** Bytes the whole index takes. */
  indexBytes: number;
}

const HEAD = '<?xml version="1.0" encoding="UTF-8"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">';
const TAIL = '</sitemapindex>';
const PER_CHUNK = 1_000;

// Resolves on 'drain' or 'close' (a reader that went away never drains), leaving no listener behind.
function drained(response: ServerResponse): Promise<void> {
  return new Promise((done) => {
    const finish = () => {
      response.off('drain', finish);
      response.off('close', finish);
      done();
    };
    response.once('drain', finish);
    response.once('close', finish);
  });
}

/** Serves an index of `children` entries as a stream with backpressure: a million are never one string. */
export async function startWideIndexSite(children: number): Promise<WideIndexSite> {
  let sent = 0;
  const entry = (origin: string, i: number) => `<sitemap><loc>${origin}/c/${i}.xml</loc></sitemap>`;
  const write = async (response: ServerResponse, origin: string) => {
    response.writeHead(200, XML);
    response.write(HEAD);
    for (let from = 0; from < children && !response.destroyed; from += PER_CHUNK) {
      let chunk = '';
      for (let i = from; i < Math.min(children, from + PER_CHUNK); i++) chunk += entry(origin, i);
      sent += Buffer.byteLength(chunk);
      if (!response.write(chunk)) await drained(response);
    }
    response.end(TAIL);
  };
  const server: LoopbackServer = await startLoopbackServer((request, response) => {
    const path = request.url ?? '/';
    if (path === '/index.xml') return write(response, server.origin).then(() => 'handled' as const);
    const match = /^\/c\/(\d+)\.xml$/.exec(path);
    if (match === null) return null;
    return { headers: XML, body: `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${server.origin}/p/${match[1]}</loc></url></urlset>` };
  });
  let indexBytes = 0;
  for (let i = 0; i < children; i++) indexBytes += entry(server.origin, i).length;
  return { server, indexBytesSent: () => sent, indexBytes };
}
