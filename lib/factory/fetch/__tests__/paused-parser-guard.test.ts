// A server that ends the connection (Connection: close, HTTP/1.0, a body delimited by the close, a reset) while the
// reader is slower than the network: undici 7's parser is paused by back-pressure when the FIN arrives, and without
// the guard its socket handler throws an uncatchable AssertionError (nodejs/undici#5360) that ends this test process.
import { createServer, type Server, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { safeRequest } from '../http-client.js';
import { closeAgents } from '../agent.js';
import { NetPolicySchema } from '../../../core/limits.js';

const BODY = Buffer.alloc(256 * 1024, 0x61);
type Framing = 'content-length' | 'chunked' | 'until-close' | 'short' | 'reset';

// Writes the whole response at once, then the FIN (or a reset): the client has it all before it reads a byte.
function respond(socket: Socket, framing: Framing): void {
  const length = framing === 'short' ? BODY.length * 2 : BODY.length;
  const head = { 'content-length': `Content-Length: ${length}\r\n`, short: `Content-Length: ${length}\r\n`, chunked: 'Transfer-Encoding: chunked\r\n' }[
    framing as 'content-length' | 'short' | 'chunked'
  ];
  socket.write(`HTTP/1.1 200 OK\r\n${head ?? ''}Connection: close\r\n\r\n`);
  if (framing === 'chunked') socket.write(`${BODY.length.toString(16)}\r\n${BODY.toString()}\r\n0\r\n\r\n`);
  else socket.write(BODY);
  if (framing === 'reset') setTimeout(() => socket.resetAndDestroy(), 50);
  else socket.end();
}

describe('a server closing the connection while the reader is paused', () => {
  let server: Server;
  let origin = '';
  beforeAll(async () => {
    server = createServer((socket) => socket.once('data', (request) => respond(socket, request.toString().split(' ')[1]?.slice(1) as Framing)));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    await closeAgents();
    await new Promise((resolve) => server.close(resolve));
  });

  // Waits until the whole response is in, then reads one chunk at a time with a pause after each.
  async function readSlowly(framing: Framing): Promise<number> {
    const response = await safeRequest(`${origin}/${framing}`, {
      timeoutMs: 10_000,
      maxRedirects: 0,
      userAgent: 'test',
      net: NetPolicySchema.parse({ allowPrivate: true }),
      maxDownloadBytes: 10_000_000,
    });
    await sleep(100);
    let bytes = 0;
    for await (const chunk of response.body) {
      bytes += chunk.length;
      await sleep(1);
    }
    return bytes;
  }

  it.each(['content-length', 'chunked', 'until-close'] as const)('reads a %s body whole, every time', async (framing) => {
    for (let round = 0; round < 10; round += 1) expect(await readSlowly(framing)).toBe(BODY.length);
  });

  it('fails a body cut short of its Content-Length as a fetch failure, never a completion', async () => {
    await expect(readSlowly('short')).rejects.toMatchObject({ kind: 'fetch_failed', message: expect.stringMatching(/content-length/i) });
  });

  it('ends a close-delimited body cut by a reset without ending the process', async () => {
    for (let round = 0; round < 5; round += 1) expect(await readSlowly('reset')).toBeLessThanOrEqual(BODY.length);
  });
});
