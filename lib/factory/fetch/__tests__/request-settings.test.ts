import { createServer, connect, type Server } from 'node:net';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoopbackServer, type LoopbackServer } from '../../../demo/loopback-server.js';
import { WalkOptionsSchema } from '../../../core/limits.js';
import { walkSitemap } from '../../sitemap.js';
import { collect, pageUrls, urlsetXml } from '../../../../test/helpers/sitemap-xml.js';
import { closeAgents } from '../index.js';

const open = { net: { allowPrivate: true } };
let site: LoopbackServer;
const seen: Array<{ path: string; headers: Record<string, string | string[] | undefined>; at: number }> = [];
let busyLeft = 0;

beforeAll(async () => {
  site = await startLoopbackServer((request) => {
    seen.push({ path: request.url ?? '', headers: request.headers, at: Date.now() });
    if (request.url === '/busy.xml' && busyLeft-- > 0) return { status: 429, headers: { 'retry-after': '1' }, body: 'slow down' };
    if (request.url === '/forever-busy.xml') return { status: 503, headers: { 'retry-after': '3600' }, body: 'later' };
    return { body: urlsetXml(pageUrls(site.origin, 3)) };
  });
});
afterAll(async () => {
  await site.close();
  await closeAgents();
});

describe('request headers', () => {
  it('sends the caller headers (a cookie included) with every sitemap request', async () => {
    await collect(walkSitemap(site.url('/h.xml'), { ...open, headers: { 'X-Api-Key': 'k1', cookie: 'session=abc' } }));
    const request = seen.find((entry) => entry.path === '/h.xml');
    expect(request?.headers['x-api-key']).toBe('k1');
    expect(request?.headers.cookie).toBe('session=abc');
  });

  it.each(['Host', 'Connection', 'Transfer-Encoding', 'Accept-Encoding', 'bad name'])('refuses the header %s', (name) => {
    expect(WalkOptionsSchema.safeParse({ headers: { [name]: 'x' } }).success).toBe(false);
  });

  it('refuses a header value with a line break', () => {
    expect(WalkOptionsSchema.safeParse({ headers: { 'x-a': 'a\r\nhost: evil' } }).success).toBe(false);
  });
});

describe('Retry-After and retries', () => {
  it('waits out a 429 Retry-After that fits the deadline and asks again', async () => {
    busyLeft = 1;
    const urls = await collect(walkSitemap(site.url('/busy.xml'), { ...open, timeoutMs: 5_000 }));
    expect(urls).toEqual(pageUrls(site.origin, 3));
    const hits = seen.filter((entry) => entry.path === '/busy.xml');
    expect(hits).toHaveLength(2);
    expect((hits[1]?.at ?? 0) - (hits[0]?.at ?? 0)).toBeGreaterThanOrEqual(900);
  });

  it('does not wait past the deadline, and retries 0 asks once', async () => {
    const before = seen.filter((entry) => entry.path === '/forever-busy.xml').length;
    await expect(collect(walkSitemap(site.url('/forever-busy.xml'), { ...open, retries: 0 }))).rejects.toMatchObject({ kind: 'http_status' });
    expect(seen.filter((entry) => entry.path === '/forever-busy.xml').length - before).toBe(1);
  });
});

describe('per-host rate', () => {
  it('spaces requests to one host at the asked rate', async () => {
    const from = seen.length;
    for (const name of ['r1', 'r2', 'r3']) await collect(walkSitemap(site.url(`/${name}.xml`), { ...open, ratePerHost: 5 }));
    const times = seen.slice(from).map((entry) => entry.at);
    expect(times).toHaveLength(3);
    expect((times[2] ?? 0) - (times[0] ?? 0)).toBeGreaterThanOrEqual(350);
  });
});

/** A minimal CONNECT proxy on 127.0.0.1 that records the targets it was asked for. */
async function startConnectProxy(): Promise<{ server: Server; url: string; targets: string[] }> {
  const targets: string[] = [];
  const server = createServer((client) => {
    client.once('data', (head: Buffer) => {
      const [method = '', target = ''] = head.toString('latin1').split(' ');
      targets.push(`${method} ${target}`);
      if (method !== 'CONNECT') return client.end('HTTP/1.1 405 Method Not Allowed\r\n\r\n');
      const [host = '', port = '0'] = target.split(/:(?=\d+$)/);
      const upstream = connect(Number(port), host, () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.pipe(client).pipe(upstream);
      });
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, targets };
}

describe('--proxy', () => {
  it('tunnels through a CONNECT proxy, and the SSRF guard still refuses a private target', async () => {
    const proxy = await startConnectProxy();
    try {
      const urls = await collect(walkSitemap(site.url('/p.xml'), { ...open, proxy: { url: proxy.url } }));
      expect(urls).toEqual(pageUrls(site.origin, 3));
      expect(proxy.targets).toContain(`CONNECT 127.0.0.1:${site.port}`);
      const asked = proxy.targets.length;
      await expect(collect(walkSitemap(site.url('/p.xml'), { proxy: { url: proxy.url } }))).rejects.toMatchObject({ kind: 'blocked_ssrf' });
      expect(proxy.targets).toHaveLength(asked);
    } finally {
      await closeAgents();
      proxy.server.close();
    }
  });

  it('goes direct for a host NO_PROXY names', async () => {
    const proxy = await startConnectProxy();
    try {
      const urls = await collect(walkSitemap(site.url('/np.xml'), { ...open, proxy: { url: proxy.url, noProxy: ['127.0.0.1'] } }));
      expect(urls).toHaveLength(3);
      expect(proxy.targets).toEqual([]);
    } finally {
      await closeAgents();
      proxy.server.close();
    }
  });
});
