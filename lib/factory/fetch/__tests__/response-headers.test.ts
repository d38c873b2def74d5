import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeAgents, safeRequest } from '../index.js';
import { requestOptions } from './helpers.js';

let server: Server;
let origin: string;

beforeAll(async () => {
  // Raw writes, so the response carries what a browser-grade Headers would clean up: repeats, padding, cookies.
  server = createServer((_request, response) => {
    response.writeHead(200, [
      ['Content-Type', 'application/xml'],
      ['ETag', '"v1"'],
      ['Vary', 'accept'],
      ['Vary', 'accept-encoding'],
      ['Set-Cookie', 'a=1'],
      ['Set-Cookie', 'b=2'],
      ['X-Padded', '  spaced  value '],
    ]);
    response.end('<urlset/>');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.close();
  await closeAgents();
});

describe('response headers', () => {
  it('answer like a WHATWG Headers: names in any case, repeats joined, cookies apart, every header listed', async () => {
    const response = await safeRequest(`${origin}/sitemap.xml`, requestOptions());
    await response.discard();
    const { headers } = response;
    expect(headers.get('Content-Type')).toBe('application/xml');
    expect(headers.get('etag')).toBe('"v1"');
    expect(headers.has('ETAG')).toBe(true);
    expect(headers.get('last-modified')).toBeNull();
    expect(headers.has('last-modified')).toBe(false);
    expect(headers.get('vary')).toBe('accept, accept-encoding');
    expect(headers.get('x-padded')).toBe('spaced  value');
    expect(headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    const names = [...headers.keys()];
    expect(names).toEqual(expect.arrayContaining(['content-type', 'etag', 'vary', 'set-cookie', 'x-padded']));
    expect(Object.fromEntries(headers)).toMatchObject({ etag: '"v1"', vary: 'accept, accept-encoding' });
  });
});
