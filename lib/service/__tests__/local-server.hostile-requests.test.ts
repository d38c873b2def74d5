import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFactoryConfig } from '../../config/factory-config.js';
import { startLocalApiServer, type LocalApiServer } from '../local-server.js';
import { createService } from '../service.js';

const API_DIR = fileURLToPath(new URL('../../../api/', import.meta.url));
const service = createService(readFactoryConfig({}));
let server: LocalApiServer;

beforeAll(async () => {
  server = await startLocalApiServer(API_DIR, { host: '127.0.0.1', port: 0 }, () => service);
});
afterAll(async () => server.close());

/** Sends raw bytes and returns the raw answer (the client's Host header is whatever the test says). */
function raw(request: string): Promise<string> {
  const { port } = new URL(server.origin);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => socket.end(request));
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}

describe('the local API server facing hostile requests', () => {
  it('answers a malformed Host header and keeps serving', async () => {
    const answer = await raw('GET /api/factory/discover?jobId=* HTTP/1.1\r\nHost: bad host\r\nConnection: close\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400/);
    expect(answer).toContain('"kind":"bad_request"');
    const next = await fetch(`${server.origin}/api/factory/discover?jobId=*`);
    expect(next.status).toBe(400);
  });

  it('refuses a port that is taken with an error, not a crash', async () => {
    const { port } = new URL(server.origin);
    await expect(startLocalApiServer(API_DIR, { host: '127.0.0.1', port: Number(port) }, () => service)).rejects.toMatchObject({ code: 'EADDRINUSE' });
  });

  it('closes the connection after refusing a body it did not read, so the next request on it is not taken for that body', async () => {
    // The whole oversized body is on the wire before the refusal: a client that reuses the connection (undici does,
    // when its write finished first) must get an answer to its next request, not a wait for the unread body to end.
    const { port } = new URL(server.origin);
    const body = JSON.stringify({ rootUrl: 'http://127.0.0.1/', padding: 'x'.repeat(1024 * 1024) });
    const refusal = `POST /api/factory/discover HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    const next = 'GET /api/factory/discover?jobId=* HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => socket.write(refusal));
      let text = '';
      socket.on('data', (chunk: Buffer) => {
        text += chunk.toString();
        if (text.includes('"kind":"bad_request"') && !socket.writableEnded) socket.end(next);
      });
      socket.on('close', () => resolve(text));
      socket.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' || error.code === 'EPIPE' ? resolve(text) : reject(error)));
      socket.setTimeout(5_000, () => resolve(`${text}\n(still open after 5 s)`));
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400/);
    expect(answer).toMatch(/\r\nconnection: close\r\n/i);
    expect(answer).not.toContain('still open');
  });

  it('reads an empty shard number as a bad request, not shard 0', async () => {
    const response = await fetch(`${server.origin}/api/factory/discover?jobId=AAAAAAAAAAAAAAAAAAAAAA&shard=`);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { kind: 'bad_request' } });
  });
});
