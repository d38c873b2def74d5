import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoopbackServer, type LoopbackServer } from '../../../demo/loopback-server.js';
import { closeAgents, safeRequest } from '../index.js';
import { collect, expectKind, requestOptions } from './helpers.js';

describe('manual redirects', () => {
  let server: LoopbackServer;

  beforeAll(async () => {
    server = await startLoopbackServer((request) => {
      const url = new URL(request.url ?? '/', 'http://x');
      const hop = /^\/chain\/(\d+)$/.exec(url.pathname);
      if (hop) {
        const left = Number(hop[1]);
        return left === 0 ? { body: 'end of chain' } : { status: 302, headers: { location: `/chain/${left - 1}` } };
      }
      if (url.pathname === '/loop') return { status: 301, headers: { location: '/loop' } };
      if (url.pathname === '/relative') return { status: 308, headers: { location: '../final?x=1' } };
      if (url.pathname === '/a/final' || url.pathname === '/final') return { body: `final ${url.search}` };
      if (url.pathname === '/to-ftp') return { status: 302, headers: { location: 'ftp://example.com/sitemap.xml' } };
      if (url.pathname === '/no-location') return { status: 302, body: 'nowhere to go' };
      if (url.pathname === '/see-other') return { status: 303, headers: { location: '/final' } };
      return null;
    });
  });
  afterAll(async () => {
    await Promise.all([server.close(), closeAgents()]);
  });

  it('follows redirects, counts them and reports the final URL', async () => {
    const response = await safeRequest(server.url('/chain/3'), requestOptions());
    expect(response.status).toBe(200);
    expect(response.redirects).toBe(3);
    expect(response.url).toBe(server.url('/chain/0'));
    expect((await collect(response.body)).toString()).toBe('end of chain');
    for (const n of [3, 2, 1, 0]) expect(server.hits(`/chain/${n}`)).toBe(1);
  });

  it('follows exactly maxRedirects hops, then fails with too_many_redirects', async () => {
    const ok = await safeRequest(server.url('/chain/5'), requestOptions({ maxRedirects: 5 }));
    expect(ok.redirects).toBe(5);
    await ok.discard();

    const error = await expectKind(safeRequest(server.url('/chain/13'), requestOptions({ maxRedirects: 2 })), 'too_many_redirects');
    expect(error.context.limit).toBe(2);
    expect(server.hits('/chain/13') + server.hits('/chain/12') + server.hits('/chain/11')).toBe(3);
    expect(server.hits('/chain/10')).toBe(0);
  });

  it('stops a self-redirect loop', async () => {
    await expectKind(safeRequest(server.url('/loop'), requestOptions({ maxRedirects: 4 })), 'too_many_redirects');
    expect(server.hits('/loop')).toBe(5);
  });

  it('maxRedirects 0 refuses the first redirect', async () => {
    await expectKind(safeRequest(server.url('/see-other'), requestOptions({ maxRedirects: 0 })), 'too_many_redirects');
  });

  it('resolves a relative Location against the current URL and keeps the query', async () => {
    const response = await safeRequest(server.url('/relative'), requestOptions());
    expect(response.url).toBe(server.url('/final?x=1'));
    expect((await collect(response.body)).toString()).toBe('final ?x=1');
  });

  it('keeps HEAD as HEAD across a 303', async () => {
    const response = await safeRequest(server.url('/see-other'), requestOptions({ method: 'HEAD' }));
    expect(response.status).toBe(200);
    expect(server.hits('/final', 'HEAD')).toBe(1);
    await response.discard();
  });

  it('a redirect to a non-HTTP scheme is invalid_url', async () => {
    await expectKind(safeRequest(server.url('/to-ftp'), requestOptions()), 'invalid_url');
  });

  it('a 3xx without Location is returned as it is', async () => {
    const response = await safeRequest(server.url('/no-location'), requestOptions());
    expect(response.status).toBe(302);
    expect(response.redirects).toBe(0);
    expect((await collect(response.body)).toString()).toBe('nowhere to go');
  });
});
