import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createSecureContext } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeAgents, safeRequest } from '../index.js';
import { SECURE_TEST_CERT, SECURE_TEST_KEY } from './fixtures/self-signed.js';
import { expectKind, PUBLIC_ONLY, requestOptions } from './helpers.js';

// Dialling the checked IP must not cost TLS its name: SNI and certificate checks still use the host name.
describe('HTTPS to a pinned address', () => {
  let server: Server;
  let port = 0;
  const sniSeen: string[] = [];
  let requests = 0;

  beforeAll(async () => {
    const context = createSecureContext({ key: SECURE_TEST_KEY, cert: SECURE_TEST_CERT });
    server = createServer(
      {
        SNICallback: (name, done) => {
          sniSeen.push(name);
          done(null, context);
        },
      },
      (_request, response) => {
        requests += 1;
        response.end('secret');
      },
    );
    await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await Promise.all([new Promise((done) => server.close(done)), closeAgents()]);
  });

  const pinned = (host: string) => ({
    ...PUBLIC_ONLY,
    allowHosts: [`${host}:${port}`],
    resolve: [{ host, port, address: '127.0.0.1' }],
  });

  it('sends the host name as SNI and still verifies the certificate (self-signed is refused)', async () => {
    const error = await expectKind(safeRequest(`https://secure.test:${port}/`, requestOptions({ net: pinned('secure.test') })), 'fetch_failed');
    expect(sniSeen).toContain('secure.test');
    expect(error.message).toMatch(/self.signed/i);
    expect(requests).toBe(0);
  });

  it('an https URL pinned to loopback without an allowHosts entry never starts a handshake', async () => {
    const before = sniSeen.length;
    const net = { ...PUBLIC_ONLY, resolve: [{ host: 'secure.test', port, address: '127.0.0.1' }] };
    await expectKind(safeRequest(`https://secure.test:${port}/`, requestOptions({ net })), 'blocked_ssrf');
    expect(sniSeen.length).toBe(before);
  });
});
