// A streamed response goes at the client's pace: a client that stops reading stops the body's source (the server
// holds a socket buffer, not the whole export), and a client that leaves cancels it.
import { once } from 'node:events';
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { sendWebResponse } from '../node-adapter.js';

const CHUNK = new Uint8Array(64 * 1024).fill(120);

// An endless body that counts what it produced and whether it was cancelled.
function endless(): { response: Response; produced: () => number; cancelled: () => boolean } {
  let produced = 0;
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      produced += CHUNK.byteLength;
      controller.enqueue(CHUNK);
    },
    cancel() {
      cancelled = true;
    },
  });
  return { response: new Response(body), produced: () => produced, cancelled: () => cancelled };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('sendWebResponse', () => {
  let server: Server | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    if (server) await new Promise((resolve) => server!.close(resolve));
  });

  async function serveEndless(): Promise<{ stream: ReturnType<typeof endless>; response: IncomingMessage; finished: Promise<void> }> {
    const stream = endless();
    let finished: Promise<void> = Promise.resolve();
    server = createServer((_req, res) => void (finished = sendWebResponse(stream.response, res)));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    const request = httpRequest({ host: '127.0.0.1', port, path: '/' });
    request.end();
    const [response] = (await once(request, 'response')) as [IncomingMessage];
    response.pause();
    return { stream, response, finished: (async () => (await sleep(0), await finished))() };
  }

  it('stops producing while the client does not read, and goes on when it does', async () => {
    const { stream, response } = await serveEndless();
    await sleep(1_000);
    const paused = stream.produced();
    await sleep(1_000);
    // Socket buffers on both sides hold a few MB at most; without back-pressure this grows by GBs a second.
    expect(stream.produced()).toBe(paused);
    expect(paused).toBeLessThan(32 * 1024 * 1024);
    response.resume();
    await sleep(500);
    expect(stream.produced()).toBeGreaterThan(paused);
    response.destroy();
  });

  it('cancels the body when the client leaves', async () => {
    const { stream, response } = await serveEndless();
    await sleep(300);
    response.destroy();
    await expect.poll(() => stream.cancelled(), { timeout: 5_000 }).toBe(true);
    const stopped = stream.produced();
    await sleep(300);
    expect(stream.produced()).toBe(stopped);
  });
});
