import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoopbackServer, type LoopbackServer } from '../../../demo/loopback-server.js';
import { closeAgents, probeUrl } from '../index.js';
import { expectKind, PUBLIC_ONLY, requestOptions } from './helpers.js';

describe('probeUrl (HEAD, then GET when HEAD may be unsupported)', () => {
  let server: LoopbackServer;

  beforeAll(async () => {
    server = await startLoopbackServer((request) => {
      const [, headStatus = '200', getStatus = '200'] = (request.url ?? '').split('/');
      if (request.url === '/moved') return { status: 301, headers: { location: '/200/200' } };
      const status = Number(request.method === 'HEAD' ? headStatus : getStatus);
      return { status, body: 'x'.repeat(200_000) };
    });
  });
  afterAll(async () => {
    await Promise.all([server.close(), closeAgents()]);
  });

  it('a HEAD 200 answers alone', async () => {
    expect(await probeUrl(server.url('/200/200'), requestOptions())).toEqual({ status: 200, url: server.url('/200/200') });
    expect(server.hits('/200/200', 'HEAD')).toBe(1);
    expect(server.hits('/200/200', 'GET')).toBe(0);
  });

  it.each([
    [405, 200],
    [501, 200],
    [403, 200],
    [400, 404],
    [500, 200],
  ])('a HEAD %i is retried with GET, whose status %i counts', async (head, get) => {
    const path = `/${head}/${get}`;
    expect((await probeUrl(server.url(path), requestOptions())).status).toBe(get);
    expect(server.hits(path, 'HEAD')).toBe(1);
    expect(server.hits(path, 'GET')).toBe(1);
  });

  it.each([404, 410, 429])('a HEAD %i is taken at its word (no GET)', async (head) => {
    const path = `/${head}/200`;
    expect((await probeUrl(server.url(path), requestOptions())).status).toBe(head);
    expect(server.hits(path, 'GET')).toBe(0);
  });

  it('follows redirects and reports the final URL', async () => {
    expect(await probeUrl(server.url('/moved'), requestOptions())).toEqual({ status: 200, url: server.url('/200/200') });
  });

  it('is guarded like every request', async () => {
    await expectKind(probeUrl(server.url('/200/200'), requestOptions({ net: PUBLIC_ONLY })), 'blocked_ssrf');
  });
});
