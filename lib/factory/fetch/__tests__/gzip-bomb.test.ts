import { createGzip, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoopbackServer, routeTable, type LoopbackServer } from '../../../demo/loopback-server.js';
import { DEFAULT_LIMITS } from '../../../core/limits.js';
import { closeAgents, openSitemap } from '../index.js';
import { expectKind, sitemapOptions } from './helpers.js';

const MiB = 1024 * 1024;

// Streams `mib` MiB of zeros through gzip, so the test never holds the expanded bomb in memory.
async function zeroBomb(mib: number): Promise<Buffer> {
  const gzip = createGzip({ level: 9 });
  const out: Buffer[] = [];
  gzip.on('data', (chunk: Buffer) => out.push(chunk));
  const ended = new Promise((resolve) => gzip.on('end', resolve));
  const zeros = Buffer.alloc(MiB);
  for (let i = 0; i < mib; i += 1) if (!gzip.write(zeros)) await new Promise((resolve) => gzip.once('drain', resolve));
  gzip.end();
  await ended;
  return Buffer.concat(out);
}

// Reads the whole stream while sampling RSS; returns the error it ended with and the peak growth.
async function drainMeasuring(bytes: AsyncIterable<Uint8Array>): Promise<{ error: unknown; read: number; peakGrowth: number }> {
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  let read = 0;
  try {
    let chunks = 0;
    for await (const chunk of bytes) {
      read += chunk.length;
      chunks += 1;
      if (chunks % 16 === 0) peak = Math.max(peak, process.memoryUsage().rss); // sampling: rss reads are not free
    }
    return { error: null, read, peakGrowth: peak - baseline };
  } catch (error) {
    return { error, read, peakGrowth: peak - baseline };
  }
}

describe('gzip bombs stop at the decompressed cap in bounded memory', () => {
  let server: LoopbackServer;

  beforeAll(async () => {
    const bomb = await zeroBomb(200); // 200 MiB of zeros in ~200 KB
    server = await startLoopbackServer(
      routeTable({
        '/bomb.xml.gz': { body: bomb },
        '/bomb-plain-name.xml': { headers: { 'content-encoding': 'gzip' }, body: gzipSync(bomb) }, // two layers
      }),
    );
  });
  afterAll(async () => {
    await Promise.all([server.close(), closeAgents()]);
  });

  it('200 MiB of zeros stops at the default 50 MiB cap with too_large and bytes context', async () => {
    const opened = await openSitemap(server.url('/bomb.xml.gz'), sitemapOptions({ maxUncompressedBytes: DEFAULT_LIMITS.maxUncompressedBytes }));
    const { error, read, peakGrowth } = await drainMeasuring(opened.bytes);
    await expectKind(Promise.reject(error), 'too_large');
    expect(error).toMatchObject({ name: 'LimitError', context: { limit: DEFAULT_LIMITS.maxUncompressedBytes } });
    const bytes = (error as { context: { bytes: number } }).context.bytes;
    expect(bytes).toBeGreaterThan(DEFAULT_LIMITS.maxUncompressedBytes);
    expect(bytes).toBeLessThan(DEFAULT_LIMITS.maxUncompressedBytes + MiB);
    expect(read).toBeLessThanOrEqual(DEFAULT_LIMITS.maxUncompressedBytes);
    expect(peakGrowth).toBeLessThan(100 * MiB);
  });

  it('a two-layer bomb (gzip inside Content-Encoding: gzip) stops at a 1 MiB cap', async () => {
    const opened = await openSitemap(server.url('/bomb-plain-name.xml'), sitemapOptions({ maxUncompressedBytes: MiB }));
    expect(opened.gzipped).toBe(true);
    const { error, read, peakGrowth } = await drainMeasuring(opened.bytes);
    const limitError = await expectKind(Promise.reject(error), 'too_large');
    expect(limitError.context.limit).toBe(MiB);
    expect(read).toBeLessThanOrEqual(MiB);
    expect(peakGrowth).toBeLessThan(100 * MiB);
  });
});
