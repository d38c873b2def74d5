import type { Socket } from 'node:net';
import { buildConnector } from '../undici-parts.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoopbackServer, routeTable, type LoopbackServer } from '../../../demo/loopback-server.js';
import { dialInTurn } from '../agent.js';

// DNS may answer several checked addresses; one that refuses must not fail the request.
describe('dialling checked addresses in turn', () => {
  let server: LoopbackServer;
  beforeAll(async () => {
    server = await startLoopbackServer(routeTable({}));
  });
  afterAll(async () => {
    await server.close();
  });

  const dialAll = (addresses: string[]) =>
    new Promise<Socket>((resolve, reject) => {
      const options = { hostname: 'site.test', host: `site.test:${server.port}`, protocol: 'http:', port: String(server.port) };
      dialInTurn(buildConnector({}), { options, addresses }, (...args) => (args[0] === null ? resolve(args[1]) : reject(args[0])));
    });

  it('moves on from an address that refuses to the next one', async () => {
    // The server listens on 127.0.0.1 only, so 127.0.0.2 refuses.
    const socket = await dialAll(['127.0.0.2', '127.0.0.1']);
    expect(socket.remoteAddress).toBe('127.0.0.1');
    socket.destroy();
  });

  it('reports the last error when every address refuses', async () => {
    await expect(dialAll(['127.0.0.2', '127.0.0.3'])).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
});
