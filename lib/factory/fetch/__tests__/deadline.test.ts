import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoopbackServer, routeTable, type LoopbackServer } from '../../../demo/loopback-server.js';
import { closeAgents, openSitemap, safeRequest } from '../index.js';
import { collect, expectKind, requestOptions, sitemapOptions } from './helpers.js';

describe('one wall-clock deadline per request, body included', () => {
  let server: LoopbackServer;

  beforeAll(async () => {
    const drip = Array.from({ length: 30 }, () => 'x');
    server = await startLoopbackServer(
      routeTable({
        '/drip': { chunks: drip, chunkDelayMs: 200 },
        '/slow-headers': { delayMs: 2_000, body: 'late' },
        '/hop-1': { delayMs: 200, status: 302, headers: { location: '/hop-2' } },
        '/hop-2': { delayMs: 200, body: 'arrived' },
        '/fast': { body: 'quick' },
        '/steady': { chunks: Array.from({ length: 8 }, () => 'y'.repeat(1024)), chunkDelayMs: 20 },
      }),
    );
  });
  afterAll(async () => {
    await Promise.all([server.close(), closeAgents()]);
  });

  it('a body dripping one byte every 200 ms ends in timeout at 500 ms', async () => {
    const started = Date.now();
    const response = await safeRequest(server.url('/drip'), requestOptions({ timeoutMs: 500 }));
    expect(response.status).toBe(200); // headers came in time: the deadline goes on into the body
    const error = await expectKind(collect(response.body), 'timeout');
    const elapsed = Date.now() - started;
    // The whole drip takes 6 s; bounds are loose because a loaded CI box fires timers late.
    expect(elapsed).toBeGreaterThanOrEqual(450);
    expect(elapsed).toBeLessThan(3_000);
    expect(error.context.bytes).toBeGreaterThan(0);
    expect(error.context.bytes).toBeLessThan(15);
  });

  it('a slow reader does not spend the budget: time waiting on the consumer is not counted', async () => {
    const response = await safeRequest(server.url('/steady'), requestOptions({ timeoutMs: 400 }));
    let bytes = 0;
    const started = Date.now();
    for await (const chunk of response.body) {
      bytes += chunk.length;
      await new Promise((resolve) => setTimeout(resolve, 450));
    }
    expect(Date.now() - started).toBeGreaterThan(400);
    expect(bytes).toBe(8 * 1024);
  });

  it('the same slow drip through openSitemap also ends in timeout', async () => {
    const opened = await openSitemap(server.url('/drip'), sitemapOptions({ timeoutMs: 500 }));
    await expectKind(collect(opened.bytes), 'timeout');
  });

  it('headers that never come in time end in timeout', async () => {
    const started = Date.now();
    await expectKind(safeRequest(server.url('/slow-headers'), requestOptions({ timeoutMs: 300 })), 'timeout');
    expect(Date.now() - started).toBeLessThan(1_900); // the server answers at 2 s
  });

  it('the deadline spans redirect hops: two 200 ms hops do not fit in 300 ms', async () => {
    await expectKind(safeRequest(server.url('/hop-1'), requestOptions({ timeoutMs: 300 })), 'timeout');
    const response = await safeRequest(server.url('/hop-1'), requestOptions({ timeoutMs: 4_000 }));
    expect((await collect(response.body)).toString()).toBe('arrived');
  });

  it('a caller abort rejects with the caller reason, not a timeout', async () => {
    const controller = new AbortController();
    const reason = new Error('job stopped');
    setTimeout(() => controller.abort(reason), 100);
    await expect(safeRequest(server.url('/slow-headers'), requestOptions({ signal: controller.signal }))).rejects.toBe(reason);
  });

  it('a caller abort while the body streams stops the body with the caller reason', async () => {
    const controller = new AbortController();
    const response = await safeRequest(server.url('/drip'), requestOptions({ signal: controller.signal }));
    setTimeout(() => controller.abort(new Error('stop now')), 300);
    await expect(collect(response.body)).rejects.toThrow('stop now');
  });

  it('an already aborted signal never reaches the server', async () => {
    const before = server.hits('/fast');
    await expect(safeRequest(server.url('/fast'), requestOptions({ signal: AbortSignal.abort(new Error('early')) }))).rejects.toThrow('early');
    expect(server.hits('/fast')).toBe(before);
  });

  it('a response left unread is cut off by its deadline without crashing anything', async () => {
    const response = await safeRequest(server.url('/drip'), requestOptions({ timeoutMs: 200 }));
    expect(response.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 400));
    const next = await safeRequest(server.url('/fast'), requestOptions());
    expect((await collect(next.body)).toString()).toBe('quick');
  });
});
