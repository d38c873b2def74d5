import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoopbackServer, type LoopbackServer } from '../../../demo/loopback-server.js';
import { agentFor } from '../agent.js';
import { closeAgents, safeRequest } from '../index.js';
import { ALLOW_PRIVATE, collect, requestOptions } from './helpers.js';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('keep-alive connection reuse', () => {
  let server: LoopbackServer;
  const sockets = new Set<Socket>();
  let bigSocket: Socket | null = null;

  beforeAll(async () => {
    server = await startLoopbackServer((request) => {
      if (request.url === '/a') return { body: 'a'.repeat(1_000) };
      if (request.url !== '/big') return null;
      bigSocket = request.socket;
      return { body: Buffer.alloc(2_000_000) };
    });
    // undici only reuses a socket the server keeps for more than 2 s (its race margin); the demo server keeps 1 s.
    server.server.keepAliveTimeout = 10_000;
    server.server.on('connection', (socket: Socket) => sockets.add(socket));
  });
  afterAll(async () => {
    await Promise.all([server.close(), closeAgents()]);
  });

  it('shares one agent between equal policies', () => {
    expect(agentFor({ ...ALLOW_PRIVATE })).toBe(agentFor({ allowPrivate: true, allowHosts: [], resolve: [] }));
    expect(agentFor(ALLOW_PRIVATE)).not.toBe(agentFor({ allowPrivate: false, allowHosts: [], resolve: [] }));
  });

  it('serves sequential requests, read or discarded, over one connection', async () => {
    for (let i = 0; i < 5; i += 1) {
      const response = await safeRequest(server.url('/a'), requestOptions());
      if (i % 2 === 0) await collect(response.body);
      else await response.discard();
      // undici returns the socket to the pool a moment after the body ends; a request sent in between opens another.
      await pause(5);
    }
    expect(server.hits('/a')).toBe(5);
    expect(sockets.size).toBe(1);
  });

  it('a reader that stops early closes its connection instead of downloading the rest', async () => {
    const response = await safeRequest(server.url('/big'), requestOptions());
    for await (const chunk of response.body) {
      expect(chunk.length).toBeGreaterThan(0);
      break;
    }
    for (let waited = 0; waited < 1_000 && bigSocket?.destroyed !== true; waited += 10) await pause(10);
    expect(bigSocket?.destroyed).toBe(true);
    const next = await safeRequest(server.url('/a'), requestOptions());
    expect((await collect(next.body)).length).toBe(1_000);
  });
});
