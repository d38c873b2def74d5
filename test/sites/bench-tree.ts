import { freemem } from 'node:os';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { createLogger } from '../../lib/utils/logger.js';
import { startLoopbackServer, type LoopbackServer, type RouteResolver } from '../../lib/demo/loopback-server.js';
import { isGzippedOnWire, sendBytes, sendStreamed, wireHeaders, type WireEncoding } from '../../lib/demo/wire.js';
import { lastmodFor } from '../../lib/demo/xml-names.js';

const log = createLogger('demo:bench-tree');
const gzipAsync = promisify(gzip);

/** Shape of the benchmark tree: one index, `children` urlsets of `perChild` entries each. */
export interface BenchTreeOptions {
  /** 20 gives 1,000,000 URLs at the default size, 100 gives 5,000,000. */
  children?: number;
  perChild?: number;
  /** Bytes of encoded children the server may keep; the rest is generated per request. Default: a quarter of free memory, at most 2 GiB. */
  cacheBudgetBytes?: number;
  port?: number;
  /** How children travel: `mixed` (the benchmark's tree, see benchChildEncoding), `half-plain`, all `plain`, or all `gzip` (Content-Encoding). */
  wire?: BenchWire;
  /** One loc in ten carries a query string escaped as XML (`?colour=blue&amp;size=m`), as shops' faceted URLs do. */
  amp?: boolean;
}

/**
 * The encodings of a tree's children: the benchmark's rotation (`mixed`), the acceptance harness's (`half-plain`: half
 * plain, a quarter `.xml.gz`, a quarter Content-Encoding gzip), or one for all (to see each path's cost alone).
 */
export type BenchWire = 'mixed' | 'half-plain' | 'plain' | 'gzip';
const BENCH_WIRES: readonly string[] = ['mixed', 'half-plain', 'plain', 'gzip'] satisfies BenchWire[];

/** A `--wire` value as a BenchWire (absent: `mixed`); anything else is refused with the values allowed. */
export function benchWireOf(value: string | undefined): BenchWire {
  const wire = value ?? 'mixed';
  if (!BENCH_WIRES.includes(wire)) throw new Error(`--wire must be one of ${BENCH_WIRES.join(', ')}: ${wire}`);
  return wire as BenchWire;
}

/** A running benchmark tree. */
export type BenchTree = LoopbackServer & { indexUrl: string; expectedUrls: number; cachedChildren: number };

const INDEX_PATH = '/bench/index.xml';
const ROTATION: readonly WireEncoding[] = ['gzip-file', 'content-encoding', 'plain'];
const HALF_PLAIN_ROTATION: readonly WireEncoding[] = ['gzip-file', 'plain', 'content-encoding', 'plain'];
const COLOURS = ['blue', 'red', 'green', 'black', 'white', 'silver', 'amber'];
const NOUNS = ['widget', 'gadget', 'lamp', 'chair', 'kettle', 'jacket', 'backpack', 'sneaker'];
const CHUNK_ENTRIES = 1_000;

/**
 * How child `i` travels: mixed, a third `.xml.gz`, a third plain XML with `Content-Encoding: gzip`, a third plain;
 * half-plain, one in four `.xml.gz`, one in four `Content-Encoding: gzip`, the other half plain (20 children: 5, 5, 10).
 */
export function benchChildEncoding(i: number, wire: BenchWire = 'mixed'): WireEncoding {
  if (wire === 'plain') return 'plain';
  if (wire === 'gzip') return 'content-encoding';
  const rotation = wire === 'half-plain' ? HALF_PLAIN_ROTATION : ROTATION;
  return rotation[i % rotation.length] ?? 'plain';
}

/** Path of child `i`. */
export function benchChildPath(i: number, wire: BenchWire = 'mixed'): string {
  return `/bench/child-${String(i).padStart(3, '0')}.xml${benchChildEncoding(i, wire) === 'gzip-file' ? '.gz' : ''}`;
}

/** Entry `i` of child `child`: loc, lastmod, changefreq and priority, pretty-printed, about 220 bytes like a real shop's. */
export function benchEntry(origin: string, child: number, i: number, amp = false): string {
  const slug = `item-${String(i).padStart(7, '0')}-${COLOURS[i % COLOURS.length]}-${NOUNS[(i >> 3) % NOUNS.length]}`;
  const query = amp && i % 10 === 0 ? `?colour=${COLOURS[(i >> 4) % COLOURS.length]}&amp;size=m` : '';
  const loc = `${origin}/catalog/c${String(child).padStart(3, '0')}/products/${slug}.html${query}`;
  const lastmod = `${lastmodFor(i + child).slice(0, 10)}T${String(i % 24).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}:00+00:00`;
  return (
    `  <url>\n    <loc>${loc}</loc>\n    <lastmod>${lastmod}</lastmod>\n` +
    `    <changefreq>${i % 4 ? 'weekly' : 'daily'}</changefreq>\n    <priority>0.${1 + ((i + child) % 9)}</priority>\n  </url>\n`
  );
}

/** Child `child` as text chunks of a thousand entries. */
export function* benchChildChunks(origin: string, child: number, perChild: number, amp = false): Iterable<string> {
  yield '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n';
  for (let start = 0; start < perChild; start += CHUNK_ENTRIES) {
    const entries: string[] = [];
    for (let i = start; i < Math.min(perChild, start + CHUNK_ENTRIES); i += 1) entries.push(benchEntry(origin, child, i, amp));
    yield entries.join('');
  }
  yield '</urlset>\n';
}

/** The index listing every child. */
export function benchIndexText(origin: string, children: number, wire: BenchWire = 'mixed'): string {
  const items = Array.from(
    { length: children },
    (_, i) => `  <sitemap><loc>${origin}${benchChildPath(i, wire)}</loc><lastmod>2024-06-01</lastmod></sitemap>\n`,
  );
  return `<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${items.join('')}</sitemapindex>\n`;
}

/** Child `child` encoded for the wire, whole (what the cache keeps). */
export async function encodeBenchChild(origin: string, child: number, perChild: number, wire: BenchWire = 'mixed', amp = false): Promise<Buffer> {
  // Chunk by chunk: flattening one 11 MB rope string costs ten times more than the generation itself.
  const text = Buffer.concat(Array.from(benchChildChunks(origin, child, perChild, amp), (chunk) => Buffer.from(chunk, 'utf8')));
  return isGzippedOnWire(benchChildEncoding(child, wire)) ? gzipAsync(text) : text;
}

// Children are encoded ahead of the measurements, two at a time (gzip runs on libuv's pool),
// so the contenders measure parsing, not our generator. Past the budget, children stream per request.
async function fillCache(
  origin: string,
  shape: Required<Pick<BenchTreeOptions, 'children' | 'perChild' | 'cacheBudgetBytes' | 'wire' | 'amp'>>,
): Promise<Map<number, Buffer>> {
  const cache = new Map<number, Buffer>();
  let used = 0;
  for (let i = 0; i < shape.children && used < shape.cacheBudgetBytes; i += 2) {
    const pair = [i, i + 1].filter((k) => k < shape.children);
    const bytes = await Promise.all(pair.map((k) => encodeBenchChild(origin, k, shape.perChild, shape.wire, shape.amp)));
    bytes.forEach((b, j) => cache.set(pair[j] ?? 0, b));
    used += bytes.reduce((sum, b) => sum + b.length, 0);
  }
  return cache;
}

function childIndexOf(path: string, children: number, wire: BenchWire): number | null {
  const match = /^\/bench\/child-(\d{3})\.xml(\.gz)?$/.exec(path);
  const i = match ? Number(match[1]) : -1;
  return i >= 0 && i < children && path === benchChildPath(i, wire) ? i : null;
}

/** Routes of the benchmark tree: the index, then children from the cache or generated on the fly. */
export function benchTreeResolver(
  origin: string,
  shape: { children: number; perChild: number; wire?: BenchWire; amp?: boolean },
  cache: Map<number, Buffer>,
): RouteResolver {
  const wire = shape.wire ?? 'mixed';
  const index = benchIndexText(origin, shape.children, wire);
  return async (request, response) => {
    const path = request.url ?? '/';
    if (path === INDEX_PATH) return { headers: { 'content-type': 'application/xml' }, body: index };
    const child = childIndexOf(path, shape.children, wire);
    if (child === null) return null;
    const encoding = benchChildEncoding(child, wire);
    const cached = cache.get(child);
    if (cached) sendBytes(request, response, cached, wireHeaders(encoding, 'application/xml'));
    else
      await sendStreamed(request, response, {
        contentType: 'application/xml',
        encoding,
        chunks: () => benchChildChunks(origin, child, shape.perChild, shape.amp === true),
      });
    return 'handled';
  };
}

/** Serves the benchmark tree on 127.0.0.1, children encoded ahead within the cache budget. */
export async function startBenchTree(options: BenchTreeOptions = {}): Promise<BenchTree> {
  const shape = {
    children: options.children ?? 20,
    perChild: options.perChild ?? 50_000,
    cacheBudgetBytes: options.cacheBudgetBytes ?? Math.min(2 ** 31, Math.floor(freemem() / 4)),
    wire: options.wire ?? 'mixed',
    amp: options.amp ?? false,
  };
  const cache = new Map<number, Buffer>();
  // The resolver needs the origin (locs are absolute), the origin needs a listening server.
  let resolve: RouteResolver = () => ({ status: 503, body: 'warming up' });
  const server = await startLoopbackServer((request, response) => resolve(request, response), options.port ?? 0);
  for (const [k, v] of await fillCache(server.origin, shape)) cache.set(k, v);
  resolve = benchTreeResolver(server.origin, shape, cache);
  log.info({ event: 'bench_tree_ready', origin: server.origin, ...shape, cachedChildren: cache.size }, 'benchmark tree ready');
  return { ...server, indexUrl: server.url(INDEX_PATH), expectedUrls: shape.children * shape.perChild, cachedChildren: cache.size };
}
