/**
 * undici 7's HTTP/1 parser pauses when a response body is read more slowly than it arrives (back-pressure). If the
 * server then closes the connection (`Connection: close`, HTTP/1.0, a body delimited by the close), undici's socket
 * `end` handler finishes the parser with `assert(!this.paused)`: an uncatchable AssertionError that ends the process
 * (nodejs/undici#5360; fixed in undici 8, which needs Node >= 22.19, and this package runs on Node 20).
 *
 * The guard runs before undici's own handlers on every socket the fetch layer hands to undici: when the connection
 * ends while the parser is paused, it resumes the parser until the bytes already received are parsed (the body
 * stream buffers them, so back-pressure is advisory for those last bytes only), and undici's handler then finds the
 * parser running and completes or fails the response as usual. A short body is still a
 * `ResponseContentLengthMismatchError`, never a false completion.
 *
 * It reaches into undici's internals (the socket's parser symbol, `paused`, `resume()`, its llhttp instance):
 * package.json pins undici exactly and `paused-parser-guard.test.ts` proves the guard against a real server on every
 * upgrade.
 */
import type { Socket } from 'node:net';
import { kParser } from './undici-parts.js';

/** The part of undici's HTTP/1 parser the guard uses. */
interface PausableParser {
  paused: boolean;
  resume(): void;
  ptr: number | null;
  llhttp: { llhttp_resume(ptr: number): void };
}

/** Installs the guard on a socket undici is about to use; returns the socket. */
export function guardPausedParser<S extends Socket>(socket: S): S {
  socket.prependListener('end', () => resumeUntilParsed(socket));
  // undici also finishes the parser on ECONNRESET after a close-delimited response (onHttpSocketError); the socket
  // is gone by then, so there is nothing left to parse.
  socket.prependListener('error', () => {
    const parser = parserOf(socket);
    if (parser !== null) releasePause(parser);
  });
  return socket;
}

// Each resume parses what the socket holds until the body stream pushes back again, and a resume on an empty
// socket lets llhttp reach the end of a length-delimited or chunked message. A body delimited by the close cannot
// end that way (it re-pauses on the empty read): llhttp is then resumed without parsing, and undici's finish
// delivers the end of the message.
function resumeUntilParsed(socket: Socket): void {
  const parser = parserOf(socket);
  while (parser !== null && parser.paused && !socket.destroyed) {
    const emptyBefore = socket.readableLength === 0;
    parser.resume();
    if (parser.paused && emptyBefore && socket.readableLength === 0) releasePause(parser);
  }
}

function releasePause(parser: PausableParser): void {
  if (!parser.paused || parser.ptr === null) return;
  parser.llhttp.llhttp_resume(parser.ptr);
  parser.paused = false;
}

function parserOf(socket: Socket): PausableParser | null {
  const parser: unknown = (socket as unknown as Record<symbol, unknown>)[kParser];
  if (typeof parser !== 'object' || parser === null || !('paused' in parser) || !('llhttp' in parser)) return null;
  return parser as PausableParser;
}
