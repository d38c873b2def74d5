import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip, gzipSync } from 'node:zlib';

/**
 * How a sitemap's bytes travel: as they are, as a `.gz` file, as gzip behind a plain name and an XML
 * Content-Type (servers that lie), or as XML compressed in transit with `Content-Encoding: gzip`.
 */
export type WireEncoding = 'plain' | 'gzip-file' | 'gzip-magic' | 'content-encoding';

/** Every encoding, in the order generated sites rotate through them. */
export const WIRE_ENCODINGS: readonly WireEncoding[] = ['gzip-file', 'content-encoding', 'gzip-magic', 'plain'];

/** Whether the bytes on the wire (before any transfer decoding) start with the gzip magic. */
export function isGzippedOnWire(encoding: WireEncoding): boolean {
  return encoding !== 'plain';
}

/** Response headers for a body of `contentType` sent with `encoding`. */
export function wireHeaders(encoding: WireEncoding, contentType: string): Record<string, string> {
  switch (encoding) {
    case 'gzip-file':
      return { 'content-type': 'application/x-gzip' };
    case 'content-encoding':
      return { 'content-type': contentType, 'content-encoding': 'gzip', vary: 'Accept-Encoding' };
    default:
      return { 'content-type': contentType };
  }
}

/** What a generated resource answers: its type, how it travels, and its text produced piece by piece. */
export interface StreamedBody {
  contentType: string;
  encoding: WireEncoding;
  /** Called once per GET, so no body is held in memory between requests. */
  chunks: () => Iterable<string>;
}

/** Streams a generated body, gzipping on the fly when its encoding asks, with backpressure. */
export async function sendStreamed(request: IncomingMessage, response: ServerResponse, body: StreamedBody): Promise<void> {
  response.writeHead(200, wireHeaders(body.encoding, body.contentType));
  if (request.method === 'HEAD') return void response.end();
  const source = Readable.from(body.chunks(), { objectMode: false });
  // A client that stops reading (a cap, a timeout) ends the pipeline with an error: that is its right.
  const done = isGzippedOnWire(body.encoding) ? pipeline(source, createGzip(), response) : pipeline(source, response);
  await done.catch(() => response.destroy());
}

/** Sends bytes already encoded for the wire (the benchmark's cached children). */
export function sendBytes(request: IncomingMessage, response: ServerResponse, bytes: Buffer, headers: Record<string, string>): void {
  response.writeHead(200, { ...headers, 'content-length': String(bytes.length) });
  response.end(request.method === 'HEAD' ? undefined : bytes);
}

/** Encodes a whole body for the wire in one go (small bodies, and the benchmark's cache). */
export function encodeForWire(text: string | Buffer, encoding: WireEncoding): Buffer {
  const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  return isGzippedOnWire(encoding) ? gzipSync(bytes) : bytes;
}
