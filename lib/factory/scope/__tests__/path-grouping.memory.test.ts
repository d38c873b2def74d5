import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { OTHER_GROUP, groupByPathPrefix } from '../path-grouper.js';
import type { PathGroup } from '../../../core/types.js';

// A full GC before each heap sample, without a config change: `--expose-gc` set at run time is
// visible to a fresh context. Without it, samples would measure garbage not yet collected.
function exposeGc(): () => void {
  const existing = (globalThis as { gc?: () => void }).gc;
  if (existing !== undefined) return existing;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

const gc = exposeGc();
const BATCH = 1_000;
const MB = 1024 * 1024;

interface HeapTrace {
  /** heapUsed after a full GC, keyed by URLs generated so far. */
  samples: Map<number, number>;
}

// URLs are made lazily, a batch at a time, so the generator itself holds nothing: unique pages
// across 5 sections, 4 of 5 under a locale folder, like a large multilingual site.
async function* generate(total: number, trace: HeapTrace, every: number): AsyncGenerator<string[]> {
  const sections = ['blog', 'docs', 'products', 'news', 'help'];
  const locales = ['en-us/', 'de-de/', 'fr/', 'ja/', ''];
  for (let start = 0; start < total; start += BATCH) {
    if (start % every === 0) {
      gc();
      trace.samples.set(start, process.memoryUsage().heapUsed);
    }
    const batch: string[] = [];
    for (let i = start; i < Math.min(start + BATCH, total); i += 1) {
      batch.push(`https://www.example.com/${locales[i % 5]}${sections[(i >> 3) % 5]}/page-${i}?ref=${i % 97}`);
    }
    yield batch;
  }
}

async function collect(source: AsyncIterable<string[]>): Promise<PathGroup[]> {
  const groups: PathGroup[] = [];
  for await (const found of groupByPathPrefix(source)) groups.push(found);
  return groups;
}

function megabytes(bytes: number | undefined): number {
  return Math.round(((bytes ?? 0) / MB) * 10) / 10;
}

describe('groupByPathPrefix: memory does not grow with the number of URLs', () => {
  it('streams 10 million URLs with a flat heap', { timeout: 120_000 }, async () => {
    const total = 10_000_000;
    const trace: HeapTrace = { samples: new Map() };
    const started = performance.now();
    const groups = await collect(generate(total, trace, 1_000_000));
    const seconds = (performance.now() - started) / 1000;

    expect(groups.map((found) => [found.prefix, found.count])).toEqual(
      ['/blog/*', '/docs/*', '/help/*', '/news/*', '/products/*'].map((prefix) => [prefix, total / 5]),
    );
    expect(groups[0]?.locales).toEqual(['de-DE', 'en-US', 'fr', 'ja']);

    const atOneMillion = trace.samples.get(1_000_000) ?? 0;
    const peak = Math.max(...trace.samples.values());
    const last = trace.samples.get(9_000_000) ?? 0;
    // Holding even 8 bytes per URL would add 72 MB between 1M and 10M URLs; allow 8 MB of noise.
    expect(peak - atOneMillion).toBeLessThan(8 * MB);
    expect(last - atOneMillion).toBeLessThan(8 * MB);
    const figures = [...trace.samples].map(([urls, bytes]) => `${urls / 1e6}M=${megabytes(bytes)}MB`).join(' ');
    process.stderr.write(`path-grouping 10M: ${seconds.toFixed(1)} s, heap after GC: ${figures}\n`);
  });

  // 300,000 folders fill and sweep the 10,000-group table 30 times; a million behaves the same
  // (measured: flat at about 17 MB after GC) but takes about 7 s on 2 cores.
  it('stays bounded for hundreds of thousands of distinct first folders', { timeout: 60_000 }, async () => {
    const total = 300_000;
    const trace: HeapTrace = { samples: new Map() };
    async function* distinct(): AsyncGenerator<string[]> {
      for (let start = 0; start < total; start += BATCH) {
        if (start % 50_000 === 0) {
          gc();
          trace.samples.set(start, process.memoryUsage().heapUsed);
        }
        yield Array.from({ length: BATCH }, (_, i) => `https://www.example.com/user-${start + i}/profile`);
      }
    }
    const groups = await collect(distinct());

    // Every folder holds one page, so all of them end in "other"; the table never held more than 10,000.
    expect(groups).toEqual([expect.objectContaining({ prefix: OTHER_GROUP, count: total })]);
    expect(groups[0]?.samples).toHaveLength(10);
    const atStart = trace.samples.get(50_000) ?? 0;
    expect(Math.max(...trace.samples.values()) - atStart).toBeLessThan(16 * MB);
    const figures = [...trace.samples].map(([urls, bytes]) => `${urls / 1e3}k=${megabytes(bytes)}MB`).join(' ');
    process.stderr.write(`path-grouping ${total / 1e3}k distinct folders: heap after GC: ${figures}\n`);
  });
});
