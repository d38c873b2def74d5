// A page on another origin must not be able to change a token-less loopback `serve` (the browser sends its no-cors
// POSTs with text/plain bodies and its own Origin); header values and paths from callers are refused at the edge.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../test/helpers/redis-server.js';
import { CONSOLE_SECURITY_HEADERS } from '../static-files.js';
import { BUILT_BIN, startServe, type ServeProcess } from './serve-process.js';

interface ErrorBody {
  error: { kind: string; message: string };
}

describe('serve refuses cross-site writes and smuggled values', () => {
  let serve: ServeProcess;
  let cwd: string;
  const post = (path: string, body: string, headers: Record<string, string>) => fetch(`${serve.origin}/api/factory${path}`, { method: 'POST', headers, body });
  const sites = async () => ((await (await fetch(`${serve.origin}/api/factory/sites`)).text()).match(/"siteId"/g) ?? []).length;

  beforeAll(async () => {
    cwd = await mkdtemp(join(tmpdir(), 'serve-cross-site-'));
    serve = await startServe({ port: await freePort(), bin: BUILT_BIN, cwd, args: ['--db', join(cwd, 'db')], env: { DATABASE_URL: '' } });
  }, 120_000);
  afterAll(async () => {
    await serve?.stop();
    await rm(cwd, { recursive: true, force: true });
  });

  const site = JSON.stringify({ rootUrl: 'https://example.com/', siteId: 'x', schedule: '15m' });

  it('refuses a page of another origin (Origin), a same-site page on another port (Sec-Fetch-Site), and text/plain bodies: 403/400, nothing created', async () => {
    const foreign = await post('/sites', site, { origin: 'http://evil.example', 'content-type': 'text/plain' });
    expect(foreign.status).toBe(403);
    expect(((await foreign.json()) as ErrorBody).error).toMatchObject({ kind: 'forbidden', message: expect.stringContaining('http://evil.example') });
    const otherPort = await post('/sites', site, { 'sec-fetch-site': 'same-site', 'content-type': 'application/json' });
    expect(otherPort.status).toBe(403);
    const plain = await post('/sites', site, { 'content-type': 'text/plain;charset=UTF-8' });
    expect(plain.status).toBe(400);
    expect(((await plain.json()) as ErrorBody).error.message).toContain('application/json');
    for (const path of ['/sites/x/sync', '/discover']) {
      expect((await post(path, '{}', { origin: 'http://127.0.0.1:1', 'content-type': 'application/json' })).status).toBe(403);
    }
    expect(await sites()).toBe(0);
  });

  it('accepts JSON from the console itself (its own Origin, same-origin) and from clients outside a browser', async () => {
    const own = await post('/sites', site, { origin: serve.origin, 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' });
    expect(own.status).toBe(201);
    const curl = await post('/sites', JSON.stringify({ rootUrl: 'https://example.org/', siteId: 'y' }), { 'content-type': 'application/json' });
    expect(curl.status).toBe(201);
    expect(await sites()).toBe(2);
  });

  it('refuses a user agent or header value with CR/LF (400), and broken percent-encoding in a path (400, not 500)', async () => {
    const injected = await post('/sites', JSON.stringify({ rootUrl: 'https://example.net/', siteId: 'z', options: { userAgent: 'a\r\nX-Injected: 1' } }), {
      'content-type': 'application/json',
    });
    expect(injected.status).toBe(400);
    expect(((await injected.json()) as ErrorBody).error.message).toMatch(/CR, LF/);
    const broken = await fetch(`${serve.origin}/api/factory/sites/%E0%A4%A/urls/x/history`);
    expect(broken.status).toBe(400);
    expect(((await broken.json()) as ErrorBody).error.kind).toBe('bad_request');
  });

  it('serves the console with a Content-Security-Policy, no framing and no sniffing', async () => {
    const page = await fetch(`${serve.origin}/`);
    expect(page.status).toBe(200);
    for (const [name, value] of Object.entries(CONSOLE_SECURITY_HEADERS)) expect(page.headers.get(name)).toBe(value);
  });
});
