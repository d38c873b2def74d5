import { once } from 'node:events';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { TimeoutError } from 'redis';
import { describe, expect, it } from 'vitest';
import { connectNodeRedis } from '../node-redis-commands.js';

describe('a Redis that accepts and then never answers', () => {
  it('fails each command at its timeout, and dials again for the next one', async () => {
    const sockets: Socket[] = [];
    let connections = 0;
    const server = createServer((socket) => {
      connections += 1;
      sockets.push(socket);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const commands = await connectNodeRedis({ url: `redis://127.0.0.1:${(server.address() as AddressInfo).port}`, commandTimeoutMs: 200 });
    try {
      await expect(commands.send(['PING'])).rejects.toBeInstanceOf(TimeoutError);
      await expect(commands.send(['GET', 'k'])).rejects.toBeInstanceOf(TimeoutError);
      expect(connections).toBe(2);
    } finally {
      await commands.close().catch(() => undefined);
      for (const socket of sockets) socket.destroy();
      server.close();
    }
  });
});
