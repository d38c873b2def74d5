import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';

/** A web-standard handler, as Vercel functions export them. */
export type WebHandler = (request: Request) => Promise<Response> | Response;

/** Builds a web Request from a node:http request (the body is streamed, not buffered); `signal` becomes `request.signal`. */
export function toWebRequest(incoming: IncomingMessage, origin: string, signal?: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (Array.isArray(value)) value.forEach((item) => headers.append(name, item));
    else if (value !== undefined) headers.set(name, value);
  }
  const method = incoming.method ?? 'GET';
  const hasBody = method !== 'GET' && method !== 'HEAD';
  return new Request(new URL(incoming.url ?? '/', origin), {
    method,
    headers,
    ...(signal ? { signal } : {}),
    ...(hasBody ? { body: Readable.toWeb(incoming) as ReadableStream<Uint8Array>, duplex: 'half' } : {}),
  } as RequestInit);
}

// Resolves once the socket takes more (drain) or is gone (close): a slow reader holds the writer, not memory.
function writable(outgoing: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    if (outgoing.destroyed) return resolve();
    const done = () => {
      outgoing.off('drain', done);
      outgoing.off('close', done);
      resolve();
    };
    outgoing.once('drain', done);
    outgoing.once('close', done);
  });
}

/**
 * Writes a web Response to a node:http response, streaming its body at the client's pace (a full socket buffer
 * pauses the body; a client gone cancels it), so a large export never piles up in the server's memory.
 */
export async function sendWebResponse(response: Response, outgoing: ServerResponse): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  // A request body left unread (a refusal before it) would be taken for the next request on a kept-alive
  // connection, holding the client: this answer is the connection's last.
  if (!outgoing.req.complete) outgoing.shouldKeepAlive = false;
  outgoing.writeHead(response.status, headers);
  if (!response.body) return void outgoing.end();
  // Leaving the loop early (break) cancels the body's stream: its source stops reading.
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    if (outgoing.destroyed) break;
    if (!outgoing.write(chunk)) await writable(outgoing);
    if (outgoing.destroyed) break;
  }
  outgoing.end();
}
