import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoopbackServer, routeTable, type LoopbackServer } from '../../../demo/loopback-server.js';
import { closeAgents, MAX_GZIP_LAYERS, openSitemap } from '../index.js';
import { collect, expectKind, sitemapOptions } from './helpers.js';

const XML = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
${Array.from({ length: 2_000 }, (_, i) => `  <url><loc>https://example.com/page/${i}</loc></url>`).join('\n')}
</urlset>
`;
const xml = Buffer.from(XML);
const gz = gzipSync(xml);
const gzLayers = (layers: number): Buffer => (layers === 0 ? xml : gzipSync(gzLayers(layers - 1)));
// A gzip file of several members, as `cat a.gz b.gz` makes; still one gzip layer.
const multiMember = Buffer.concat([gzipSync(xml.subarray(0, 1_000)), gzipSync(xml.subarray(1_000))]);

describe('openSitemap decoding', () => {
  let server: LoopbackServer;

  beforeAll(async () => {
    server = await startLoopbackServer(
      routeTable({
        '/sitemap.xml.gz': { headers: { 'content-type': 'application/x-gzip' }, body: gz },
        '/sitemap.xml': { headers: { 'content-type': 'application/xml' }, body: gz }, // gzip under a plain name
        '/plain.xml': { headers: { 'content-type': 'text/xml' }, body: xml },
        '/double.xml.gz': { headers: { 'content-encoding': 'gzip' }, body: gzLayers(2) },
        '/triple': { body: gzLayers(MAX_GZIP_LAYERS) },
        '/too-many-layers': { body: gzLayers(MAX_GZIP_LAYERS + 1) },
        '/lying-header.xml': { headers: { 'content-encoding': 'gzip' }, body: xml }, // says gzip, is not
        '/not-really.xml.gz': { body: xml }, // .gz name, plain content
        '/x-gzip': { headers: { 'content-encoding': 'x-gzip' }, body: gz },
        '/br': { headers: { 'content-encoding': 'br' }, body: brotliCompressSync(xml) },
        '/br-over-gz.xml.gz': { headers: { 'content-encoding': 'br' }, body: brotliCompressSync(gz) },
        '/deflate': { headers: { 'content-encoding': 'deflate' }, body: deflateSync(xml) },
        '/deflate-raw': { headers: { 'content-encoding': 'deflate' }, body: deflateRawSync(xml) },
        '/zstd': { headers: { 'content-encoding': 'zstd' }, body: xml },
        '/multi-member.gz': { body: multiMember },
        '/truncated.xml.gz': { body: gz.subarray(0, Math.floor(gz.length / 2)) },
        '/corrupt.xml.gz': { body: Buffer.concat([gz.subarray(0, 10), Buffer.alloc(200, 0xaa)]) },
        '/split-magic': { chunks: [gz.subarray(0, 1), gz.subarray(1, 2), gz.subarray(2)], chunkDelayMs: 20 },
        '/missing.xml': { status: 404, headers: { 'content-type': 'application/xml' }, body: XML },
        '/broken.xml': { status: 500, body: XML },
        '/empty.xml': { body: '' },
      }),
    );
  });
  afterAll(async () => {
    await Promise.all([server.close(), closeAgents()]);
  });

  const open = (path: string, overrides = {}) => openSitemap(server.url(path), sitemapOptions(overrides));

  it.each([
    ['/sitemap.xml.gz', 'gzip by suffix'],
    ['/sitemap.xml', 'gzip by magic bytes under a plain name'],
    ['/double.xml.gz', '.xml.gz also sent with Content-Encoding: gzip (two layers)'],
    ['/triple', `${MAX_GZIP_LAYERS} nested gzip layers`],
    ['/x-gzip', 'Content-Encoding: x-gzip'],
    ['/multi-member.gz', 'a multi-member gzip file'],
    ['/split-magic', 'gzip whose magic bytes arrive one at a time'],
    ['/br-over-gz.xml.gz', 'a .gz file sent with Content-Encoding: br'],
  ])('%s decodes to the original XML (%s)', async (path) => {
    const opened = await open(path);
    expect(opened.gzipped).toBe(true);
    expect((await collect(opened.bytes)).equals(xml)).toBe(true);
  });

  it.each(['/plain.xml', '/lying-header.xml', '/not-really.xml.gz', '/br', '/deflate', '/deflate-raw'])(
    '%s decodes to the original XML with no gzip layer',
    async (path) => {
      const opened = await open(path);
      expect(opened.gzipped).toBe(false);
      expect((await collect(opened.bytes)).equals(xml)).toBe(true);
    },
  );

  it('reports the final URL, status and Content-Type', async () => {
    const opened = await open('/sitemap.xml.gz');
    expect(opened).toMatchObject({ url: server.url('/sitemap.xml.gz'), status: 200, contentType: 'application/x-gzip' });
    await collect(opened.bytes);
  });

  it('an empty body is an empty stream', async () => {
    const opened = await open('/empty.xml');
    expect((await collect(opened.bytes)).length).toBe(0);
  });

  it('truncated gzip is a decompress error', async () => {
    const error = await expectKind(
      open('/truncated.xml.gz').then((opened) => collect(opened.bytes)),
      'decompress',
    );
    expect(error.name).toBe('ParseError');
    expect(error.url).toBe(server.url('/truncated.xml.gz'));
  });

  it('corrupt gzip (right magic, garbage after) is a decompress error', async () => {
    await expectKind(
      open('/corrupt.xml.gz').then((opened) => collect(opened.bytes)),
      'decompress',
    );
  });

  it(`more than ${MAX_GZIP_LAYERS} gzip layers is a decompress error`, async () => {
    await expectKind(
      open('/too-many-layers').then((opened) => collect(opened.bytes)),
      'decompress',
    );
  });

  it('an unknown Content-Encoding is unsupported_format', async () => {
    await expectKind(open('/zstd'), 'unsupported_format');
  });

  it('a 404 with an XML body is http_status, before any parsing', async () => {
    const error = await expectKind(open('/missing.xml'), 'http_status');
    expect(error.context.status).toBe(404);
    expect(error.name).toBe('FetchError');
  });

  it('a 500 is http_status with its status', async () => {
    const error = await expectKind(open('/broken.xml'), 'http_status');
    expect(error.context.status).toBe(500);
  });

  it('asks for compressed transfer', async () => {
    const seen: string[] = [];
    const echo = await startLoopbackServer((request) => {
      seen.push(String(request.headers['accept-encoding']));
      return { body: 'x' };
    });
    try {
      await collect((await openSitemap(echo.url('/s.xml'), sitemapOptions())).bytes);
      expect(seen).toEqual(['gzip, deflate, br']);
    } finally {
      await echo.close();
    }
  });
});
