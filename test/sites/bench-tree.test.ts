import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { benchChildEncoding, benchChildPath, benchEntry, startBenchTree, type BenchTree } from './bench-tree.js';
import { childrenOf, decodeBody, isGzip, pageUrlsOf, rawGet } from '../../lib/demo/__tests__/independent-walk.js';

describe('benchmark tree', () => {
  let cached: BenchTree;
  let streamed: BenchTree;
  beforeAll(async () => {
    [cached, streamed] = await Promise.all([
      startBenchTree({ children: 4, perChild: 2_000 }),
      startBenchTree({ children: 4, perChild: 2_000, cacheBudgetBytes: 0 }),
    ]);
  });
  afterAll(() => Promise.all([cached.close(), streamed.close()]));

  it('lists every child in one index, rotating .xml.gz, Content-Encoding gzip and plain', async () => {
    const children = childrenOf(decodeBody((await rawGet(cached.indexUrl)).body)) ?? [];
    expect(children).toEqual([0, 1, 2, 3].map((i) => cached.url(benchChildPath(i))));
    expect([0, 1, 2, 3].map((i) => benchChildEncoding(i))).toEqual(['gzip-file', 'content-encoding', 'plain', 'gzip-file']);
  });

  it('serves exactly children x perChild distinct page URLs, each child on the wire as its encoding says', async () => {
    const pages = new Set<string>();
    for (let i = 0; i < 4; i += 1) {
      const { headers, body } = await rawGet(cached.url(benchChildPath(i)));
      expect(isGzip(body)).toBe(benchChildEncoding(i) !== 'plain');
      expect(headers['content-encoding'] === 'gzip').toBe(benchChildEncoding(i) === 'content-encoding');
      const urls = pageUrlsOf(decodeBody(body));
      expect(urls).toHaveLength(2_000);
      urls.forEach((url) => pages.add(url));
    }
    expect(pages.size).toBe(cached.expectedUrls);
  });

  it('serves every child plain, or every child with Content-Encoding gzip, when asked (--wire)', async () => {
    const [plain, gzip] = await Promise.all([
      startBenchTree({ children: 3, perChild: 500, wire: 'plain' }),
      startBenchTree({ children: 3, perChild: 500, wire: 'gzip' }),
    ]);
    try {
      for (const [tree, gzipped] of [
        [plain, false],
        [gzip, true],
      ] as const) {
        const children = childrenOf(decodeBody((await rawGet(tree.indexUrl)).body)) ?? [];
        expect(children).toHaveLength(3);
        for (const child of children) {
          const { headers, body } = await rawGet(child);
          expect(isGzip(body)).toBe(gzipped);
          expect(headers['content-encoding'] === 'gzip').toBe(gzipped);
          expect(pageUrlsOf(decodeBody(body))).toHaveLength(500);
        }
      }
    } finally {
      await Promise.all([plain.close(), gzip.close()]);
    }
  });

  it('sends half the children plain, a quarter .xml.gz and a quarter Content-Encoding gzip (--wire half-plain)', () => {
    const encodings = Array.from({ length: 20 }, (_, i) => benchChildEncoding(i, 'half-plain'));
    const count = (encoding: string) => encodings.filter((e) => e === encoding).length;
    expect([count('plain'), count('gzip-file'), count('content-encoding')]).toEqual([10, 5, 5]);
    expect(benchChildPath(0, 'half-plain')).toMatch(/\.xml\.gz$/);
    expect(benchChildPath(1, 'half-plain')).toMatch(/\.xml$/);
  });

  it('writes realistic entries of about 220 bytes', () => {
    const sizes = Array.from({ length: 1_000 }, (_, i) => Buffer.byteLength(benchEntry('http://127.0.0.1:40000', 7, i * 49)));
    const mean = sizes.reduce((a, b) => a + b, 0) / sizes.length;
    expect(mean).toBeGreaterThan(200);
    expect(mean).toBeLessThan(240);
    expect(benchEntry('http://h', 0, 0)).toMatch(/<loc>[\s\S]*<lastmod>[\s\S]*<changefreq>[\s\S]*<priority>/);
  });

  it('gives the same bytes from the cache as generated on the fly', async () => {
    expect(cached.cachedChildren).toBe(4);
    expect(streamed.cachedChildren).toBe(0);
    for (const i of [0, 1, 2]) {
      const [a, b] = await Promise.all([cached, streamed].map((tree) => rawGet(tree.url(benchChildPath(i)))));
      expect(decodeBody(b?.body ?? Buffer.alloc(0)).replaceAll(streamed.origin, 'O')).toBe(
        decodeBody(a?.body ?? Buffer.alloc(0)).replaceAll(cached.origin, 'O'),
      );
    }
  });

  it('answers 404 for paths that are not in the tree', async () => {
    expect((await rawGet(cached.url('/bench/child-999.xml'))).status).toBe(404);
    expect((await rawGet(cached.url('/bench/child-000.xml'))).status).toBe(404);
  });
});
