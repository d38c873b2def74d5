import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoopbackServer, routeTable, type LoopbackServer } from '../../../demo/loopback-server.js';
import { closeAgents, readTextCapped, safeRequest } from '../index.js';
import { completeUtf8Length } from '../read-text.js';
import { requestOptions } from './helpers.js';

const ROBOTS = '\uFEFFUser-agent: *\r\nDisallow: /private\r\nSitemap: https://example.com/sitemap.xml\r\n';
const KiB = 1024;

describe('readTextCapped (robots.txt reading)', () => {
  let server: LoopbackServer;
  const long = `Sitemap: /a.xml\n${'#'.repeat(600 * KiB)}\nSitemap: /never-read.xml\n`;

  beforeAll(async () => {
    server = await startLoopbackServer(
      routeTable({
        '/robots.txt': { headers: { 'content-type': 'text/plain' }, body: ROBOTS },
        '/long.txt': { body: long },
        '/euro.txt': { body: `${'a'.repeat(9)}€€` }, // € is 3 bytes: a cut at 10 or 11 lands inside it
        '/gzipped.txt': { body: gzipSync(Buffer.from(ROBOTS)) }, // gzip sent without being asked
        '/gzip-bomb.txt': { body: gzipSync(Buffer.alloc(64 * 1024 * KiB, 'x')) },
      }),
    );
  });
  afterAll(async () => {
    await Promise.all([server.close(), closeAgents()]);
  });

  const read = async (path: string, maxBytes: number) => readTextCapped(await safeRequest(server.url(path), requestOptions()), maxBytes);

  it('decodes UTF-8, strips the BOM and keeps CRLF for the parser', async () => {
    const { text, truncated } = await read('/robots.txt', 500 * KiB);
    expect(text).toBe(ROBOTS.slice(1));
    expect(truncated).toBe(false);
  });

  it('stops at the read limit without an error and says it truncated', async () => {
    const { text, truncated } = await read('/long.txt', 500 * KiB);
    expect(truncated).toBe(true);
    expect(Buffer.byteLength(text)).toBe(500 * KiB);
    expect(text.startsWith('Sitemap: /a.xml\n')).toBe(true);
    expect(text).not.toContain('never-read');
  });

  it('a body of exactly the limit is not truncated', async () => {
    const { text, truncated } = await read('/robots.txt', Buffer.byteLength(ROBOTS));
    expect(truncated).toBe(false);
    expect(text).toBe(ROBOTS.slice(1));
  });

  it.each([10, 11])('a cut inside a multi-byte character at %i bytes drops it instead of adding U+FFFD', async (limit) => {
    const { text, truncated } = await read('/euro.txt', limit);
    expect(truncated).toBe(true);
    expect(text).toBe('a'.repeat(9));
  });

  it('decodes a gzip body found by its magic bytes', async () => {
    const { text } = await read('/gzipped.txt', 500 * KiB);
    expect(text).toBe(ROBOTS.slice(1));
  });

  it('reads only the limit out of a gzip bomb', async () => {
    const { text, truncated } = await read('/gzip-bomb.txt', 500 * KiB);
    expect(truncated).toBe(true);
    expect(text.length).toBe(500 * KiB);
  });

  it('completeUtf8Length keeps whole characters only', () => {
    const bytes = Buffer.from('aé€😀');
    expect(completeUtf8Length(bytes)).toBe(bytes.length);
    expect(completeUtf8Length(bytes.subarray(0, bytes.length - 1))).toBe(bytes.length - 4);
    expect(completeUtf8Length(bytes.subarray(0, 5))).toBe(3); // inside €
    expect(completeUtf8Length(bytes.subarray(0, 2))).toBe(1); // inside é
    expect(completeUtf8Length(new Uint8Array())).toBe(0);
  });
});
