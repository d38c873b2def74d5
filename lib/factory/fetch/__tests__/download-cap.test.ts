import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoopbackServer, routeTable, type LoopbackServer } from '../../../demo/loopback-server.js';
import { closeAgents, MAX_HEADER_BYTES, openSitemap, safeRequest } from '../index.js';
import { collect, expectKind, requestOptions, sitemapOptions } from './helpers.js';

describe('byte and header caps', () => {
  let server: LoopbackServer;
  const big = Buffer.alloc(300_000, 'a');

  beforeAll(async () => {
    const chunk = Buffer.alloc(16_384, 'b');
    server = await startLoopbackServer(
      routeTable({
        '/big': { body: big },
        '/declared': { headers: { 'content-length': String(big.length) }, body: big },
        '/chunked': { chunks: Array.from({ length: 64 }, () => chunk) }, // 1 MiB, no Content-Length
        '/huge-header': { headers: { 'x-filler': 'h'.repeat(MAX_HEADER_BYTES + 1_000) }, body: 'never seen' },
        '/fine-header': { headers: { 'x-filler': 'h'.repeat(4_000) }, body: 'seen' },
      }),
    );
  });
  afterAll(async () => {
    await Promise.all([server.close(), closeAgents()]);
  });

  it('reads a body exactly at the cap', async () => {
    const response = await safeRequest(server.url('/big'), requestOptions({ maxDownloadBytes: big.length }));
    expect((await collect(response.body)).length).toBe(big.length);
  });

  it('stops a body one byte over the cap with too_large, bytes and limit in context', async () => {
    const response = await safeRequest(server.url('/big'), requestOptions({ maxDownloadBytes: big.length - 1 }));
    const error = await expectKind(collect(response.body), 'too_large');
    expect(error.name).toBe('LimitError');
    expect(error.context.limit).toBe(big.length - 1);
    expect(error.context.bytes).toBeGreaterThan(big.length - 1);
  });

  it('stops a chunked body without Content-Length while it streams', async () => {
    const response = await safeRequest(server.url('/chunked'), requestOptions({ maxDownloadBytes: 100_000 }));
    const error = await expectKind(collect(response.body), 'too_large');
    expect(error.context.bytes).toBeLessThanOrEqual(100_000 + 65_536);
  });

  it('openSitemap refuses a declared Content-Length over the cap before reading', async () => {
    const error = await expectKind(openSitemap(server.url('/declared'), sitemapOptions({ maxDownloadBytes: 1_000 })), 'too_large');
    expect(error.context).toMatchObject({ bytes: big.length, limit: 1_000 });
  });

  it('openSitemap stops a chunked body over the cap while decoding', async () => {
    const opened = openSitemap(server.url('/chunked'), sitemapOptions({ maxDownloadBytes: 100_000 }));
    const error = await expectKind(
      opened.then((sitemap) => collect(sitemap.bytes)),
      'too_large',
    );
    expect(error.context.limit).toBe(100_000);
  });

  it(`refuses response headers over ${MAX_HEADER_BYTES} bytes as fetch_failed`, async () => {
    const error = await expectKind(safeRequest(server.url('/huge-header'), requestOptions()), 'fetch_failed');
    expect(error.message).toMatch(/header/i);
    const ok = await safeRequest(server.url('/fine-header'), requestOptions());
    expect(ok.headers.get('x-filler')?.length).toBe(4_000);
    await ok.discard();
  });
});
