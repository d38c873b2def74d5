import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A canned answer: status, headers and body (string, bytes, or chunks written with a pause between them). */
export interface CannedResponse {
  status?: number;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** Written one after another with `chunkDelayMs` between them (slow-drip servers). */
  chunks?: Array<string | Uint8Array>;
  chunkDelayMs?: number;
  /** Waited before the status line is sent. */
  delayMs?: number;
  /** The connection is dropped after the chunks, before the response ends (a cut mid-body). */
  cut?: boolean;
}

/** Decides the answer for one request; `null` is a 404. A function may also answer by itself. */
export type RouteResolver = (
  request: IncomingMessage,
  response: ServerResponse,
) => CannedResponse | null | 'handled' | Promise<CannedResponse | null | 'handled'>;

/** A server on 127.0.0.1 with the request log tests and benchmarks assert on. */
export interface LoopbackServer {
  origin: string;
  port: number;
  /** Absolute URL of a path on this server. */
  url(path: string): string;
  /** Requests per `METHOD path` and per path (any method). */
  hits(path: string, method?: string): number;
  totalRequests(): number;
  /** Most requests that were in flight at the same moment. */
  maxInFlight(): number;
  close(): Promise<void>;
  server: Server;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function writeCanned(request: IncomingMessage, response: ServerResponse, canned: CannedResponse): Promise<void> {
  if (canned.delayMs) await sleep(canned.delayMs);
  response.writeHead(canned.status ?? 200, canned.headers ?? {});
  if (request.method === 'HEAD') return void response.end();
  for (const chunk of canned.chunks ?? []) {
    if (response.destroyed) return;
    response.write(chunk);
    if (canned.chunkDelayMs) await sleep(canned.chunkDelayMs);
  }
  if (canned.cut) {
    // Let what was written reach the client first: a socket destroyed at once drops its unsent bytes too.
    await new Promise<void>((flushed) => response.write('', () => flushed()));
    await sleep(20);
    return void response.socket?.destroy();
  }
  response.end(canned.body ?? '');
}

/** Starts a loopback HTTP server answering through `resolve`, on a free port unless one is given. */
export async function startLoopbackServer(resolve: RouteResolver, port = 0): Promise<LoopbackServer> {
  const counts = new Map<string, number>();
  let inFlight = 0;
  let peak = 0;
  let total = 0;
  const bump = (key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);

  const server = createServer((request, response) => {
    const path = request.url ?? '/';
    total += 1;
    bump(path);
    bump(`${request.method ?? 'GET'} ${path}`);
    inFlight += 1;
    peak = Math.max(peak, inFlight);
    response.on('close', () => (inFlight -= 1));
    void (async () => {
      const answer = await resolve(request, response);
      if (answer === 'handled') return;
      await writeCanned(request, response, answer ?? { status: 404, body: 'not found' });
    })().catch(() => response.destroy());
  });
  // undici reuses a socket only when the server keeps it open for more than 2 s.
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((ready) => server.listen(port, '127.0.0.1', ready));
  const actualPort = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${actualPort}`;
  return {
    origin,
    port: actualPort,
    server,
    url: (path) => new URL(path, origin).href,
    hits: (path, method) => counts.get(method ? `${method} ${path}` : path) ?? 0,
    totalRequests: () => total,
    maxInFlight: () => peak,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

/** A resolver over a fixed table of paths (query strings included when the key has one). */
export function routeTable(routes: Record<string, CannedResponse>): RouteResolver {
  return (request) => routes[request.url ?? '/'] ?? routes[(request.url ?? '/').split('?')[0] ?? '/'] ?? null;
}
