import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoopbackServer, routeTable, type LoopbackServer } from '../../../demo/loopback-server.js';
import type { NetPolicy } from '../../../core/limits.js';
import { agentFor } from '../agent.js';
import { request } from '../undici-parts.js';
import { assertUrlAllowed, closeAgents, safeRequest } from '../index.js';
import { collect, expectKind, PUBLIC_ONLY, requestOptions } from './helpers.js';

const policy = (overrides: Partial<NetPolicy>): NetPolicy => ({ ...PUBLIC_ONLY, ...overrides });

describe('assertUrlAllowed (no connection made)', () => {
  it.each(['file:///etc/passwd', 'ftp://example.com/sitemap.xml', 'gopher://example.com/', 'data:text/plain,hi', 'javascript:alert(1)'])(
    'refuses the non-HTTP scheme of %s as invalid_url',
    async (url) => {
      await expectKind(
        Promise.resolve().then(() => assertUrlAllowed(new URL(url), PUBLIC_ONLY)),
        'invalid_url',
      );
    },
  );

  it.each([
    'http://127.0.0.1/',
    'http://2130706433/', // decimal
    'http://0177.0.0.1/', // octal
    'http://0x7f.1/', // hex, short
    'http://127.1/', // short
    'http://0x7f000001/',
    'http://127.0.0.1./', // trailing dot
    'http://[::1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:7f00:1]/',
    'http://[64:ff9b::7f00:1]/', // NAT64
    'http://[2002:7f00:1::]/', // 6to4
    'http://0.0.0.0/',
    'http://0/',
    'http://[::]/',
    'http://10.0.0.1/',
    'http://172.16.5.4/',
    'http://192.168.0.1/',
    'http://[fc00::1]/',
    'http://[fe80::1]/',
    'http://169.254.10.10/',
    'http://169.254.169.254/latest/meta-data/',
    'http://[fd00:ec2::254]/',
    'http://100.64.0.1/',
    'http://224.0.0.1/',
    'https://[ff02::1]/',
    'http://255.255.255.255/',
  ])('blocks %s once the URL parser has normalised it', (url) => {
    expect(() => assertUrlAllowed(new URL(url), PUBLIC_ONLY)).toThrow(expect.objectContaining({ kind: 'blocked_ssrf' }));
  });

  it('lets public literals and names through (names are checked at DNS time)', () => {
    expect(() => assertUrlAllowed(new URL('https://8.8.8.8/sitemap.xml'), PUBLIC_ONLY)).not.toThrow();
    expect(() => assertUrlAllowed(new URL('https://[2606:4700::1111]/'), PUBLIC_ONLY)).not.toThrow();
    expect(() => assertUrlAllowed(new URL('https://example.com/'), PUBLIC_ONLY)).not.toThrow();
  });

  it('allowPrivate opens loopback and private ranges but not cloud metadata', () => {
    const open = policy({ allowPrivate: true });
    expect(() => assertUrlAllowed(new URL('http://127.0.0.1:8080/'), open)).not.toThrow();
    expect(() => assertUrlAllowed(new URL('http://[fd12::1]/'), open)).not.toThrow();
    expect(() => assertUrlAllowed(new URL('http://169.254.169.254/'), open)).toThrow(expect.objectContaining({ kind: 'blocked_ssrf' }));
  });

  it('allowHosts opens exactly the named host, and only the named port when one is given', () => {
    const net = policy({ allowHosts: ['127.0.0.1:8080', '[::1]', '0x0a.1'] });
    expect(() => assertUrlAllowed(new URL('http://127.0.0.1:8080/'), net)).not.toThrow();
    expect(() => assertUrlAllowed(new URL('http://127.0.0.1:8081/'), net)).toThrow(expect.objectContaining({ kind: 'blocked_ssrf' }));
    expect(() => assertUrlAllowed(new URL('http://127.0.0.2:8080/'), net)).toThrow(expect.objectContaining({ kind: 'blocked_ssrf' }));
    expect(() => assertUrlAllowed(new URL('http://[::1]:9999/'), net)).not.toThrow();
    expect(() => assertUrlAllowed(new URL('http://10.0.0.1/'), net)).not.toThrow(); // entry normalised like a URL host
  });

  it('checks a resolve entry before connecting: a pin to 127.0.0.1 is blocked without allowPrivate/allowHosts', () => {
    const net = policy({ resolve: [{ host: 'evil.test', port: 80, address: '127.0.0.1' }] });
    expect(() => assertUrlAllowed(new URL('http://evil.test/'), net)).toThrow(expect.objectContaining({ kind: 'blocked_ssrf' }));
    expect(() => assertUrlAllowed(new URL('http://evil.test:81/'), net)).not.toThrow(); // other port: DNS decides later
  });
});

describe('safeRequest against real loopback servers', () => {
  let site: LoopbackServer;
  let other: LoopbackServer;

  beforeAll(async () => {
    other = await startLoopbackServer(routeTable({ '/secret': { body: 'internal data' } }));
    site = await startLoopbackServer((request) => {
      const host = request.headers.host ?? '';
      if (request.url === '/to-other') return { status: 302, headers: { location: `${other.origin}/secret` } };
      if (request.url === '/to-v6') return { status: 301, headers: { location: `http://[::1]:${other.port}/secret` } };
      if (request.url === '/to-localhost') return { status: 307, headers: { location: `http://localhost:${other.port}/secret` } };
      if (request.url === '/to-metadata') return { status: 302, headers: { location: 'http://169.254.169.254/latest/meta-data/' } };
      return { body: `hello ${host}` };
    });
  });
  afterAll(async () => {
    await Promise.all([site.close(), other.close(), closeAgents()]);
  });

  it('refuses a loopback literal by default and never connects', async () => {
    await expectKind(safeRequest(site.url('/'), requestOptions({ net: PUBLIC_ONLY })), 'blocked_ssrf');
    expect(site.totalRequests()).toBe(0);
  });

  it('refuses a name whose DNS answer is loopback (localhost via system DNS)', async () => {
    const before = site.totalRequests();
    await expectKind(safeRequest(`http://localhost:${site.port}/`, requestOptions({ net: PUBLIC_ONLY })), 'blocked_ssrf');
    expect(site.totalRequests()).toBe(before);
  });

  it('refuses a --resolve style answer evil.test -> 127.0.0.1 and never connects', async () => {
    const before = site.totalRequests();
    const net = policy({ resolve: [{ host: 'evil.test', port: site.port, address: '127.0.0.1' }] });
    const error = await expectKind(safeRequest(`http://evil.test:${site.port}/`, requestOptions({ net })), 'blocked_ssrf');
    expect(error.url).toContain('evil.test');
    expect(site.totalRequests()).toBe(before);
  });

  it('checks DNS answers in the connector itself: bypassing the URL pre-check still ends in blocked_ssrf', async () => {
    const before = site.totalRequests();
    const pinned = policy({ resolve: [{ host: 'evil.test', port: site.port, address: '127.0.0.1' }] });
    const viaPin = request(agentFor(pinned), { origin: `http://evil.test:${site.port}`, path: '/', method: 'GET' });
    await expect(viaPin).rejects.toMatchObject({ kind: 'blocked_ssrf' });
    const viaDns = request(agentFor(PUBLIC_ONLY), { origin: `http://localhost:${site.port}`, path: '/', method: 'GET' });
    await expect(viaDns).rejects.toMatchObject({ kind: 'blocked_ssrf' });
    expect(site.totalRequests()).toBe(before);
  });

  it('dials the pinned address itself: evil.test (not in DNS) reaches the server once allowed, Host header intact', async () => {
    const net = policy({
      allowHosts: [`evil.test:${site.port}`],
      resolve: [{ host: 'evil.test', port: site.port, address: '127.0.0.1' }],
    });
    const response = await safeRequest(`http://evil.test:${site.port}/hi`, requestOptions({ net }));
    expect(response.status).toBe(200);
    expect((await collect(response.body)).toString()).toBe(`hello evil.test:${site.port}`);
  });

  it('allowHosts with host:port opens that server only', async () => {
    const net = policy({ allowHosts: [`127.0.0.1:${site.port}`] });
    const response = await safeRequest(site.url('/ok'), requestOptions({ net }));
    expect((await collect(response.body)).toString()).toContain('hello');
    await expectKind(safeRequest(other.url('/secret'), requestOptions({ net })), 'blocked_ssrf');
    expect(other.totalRequests()).toBe(0);
  });

  it.each(['/to-other', '/to-v6', '/to-localhost', '/to-metadata'])(
    're-checks every redirect hop: %s from an allowed host to a blocked one is blocked_ssrf',
    async (path) => {
      const net = policy({ allowHosts: [`127.0.0.1:${site.port}`] });
      await expectKind(safeRequest(site.url(path), requestOptions({ net })), 'blocked_ssrf');
      expect(site.hits(path)).toBe(1);
      expect(other.totalRequests()).toBe(0);
    },
  );

  it('a name that does not resolve is fetch_failed, not blocked', async () => {
    await expectKind(safeRequest('http://no-such-host.invalid/', requestOptions({ net: PUBLIC_ONLY })), 'fetch_failed');
  });

  it('an unparsable URL is invalid_url', async () => {
    await expectKind(safeRequest('http://exa mple.com:99999/', requestOptions()), 'invalid_url');
    await expectKind(safeRequest('not a url', requestOptions()), 'invalid_url');
  });
});
