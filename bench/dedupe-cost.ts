/**
 * Cost of the per-sitemap URL dedupe: parses one 50,000-URL bench child (about 11 MB) and maps every entry
 * through the walk's URL mapper, `--rounds` times, printing the median and best CPU time of the mapper alone, of
 * parse+map and of parse only.
 * Run: node bin/run-ts.mjs bench/dedupe-cost.ts [--rounds 15]
 */
import { benchChildChunks } from '../test/sites/bench-tree.js';
import { createSitemapParser } from '../lib/factory/parse/index.js';
import { createUrlMapper } from '../lib/factory/sitemap.js';
import type { ParsedUrl } from '../lib/core/types.js';
import { cpuMs } from './process-cpu.js';
import { positiveIntArg } from './script-args.js';

const rounds = positiveIntArg('--rounds', 15);
const origin = 'https://shop.example.com';
const bytes = Buffer.concat(Array.from(benchChildChunks(origin, 1, 50_000), (chunk) => Buffer.from(chunk)));
const chunks: Buffer[] = [];
for (let at = 0; at < bytes.length; at += 65_536) chunks.push(bytes.subarray(at, at + 65_536));
const ref = { url: `${origin}/child.xml`, depth: 1, parent: null };

function run(map: boolean): number {
  const mapper = createUrlMapper();
  const parser = createSitemapParser({ sitemapUrl: ref.url, maxUrlLength: 2048 });
  let urls = 0;
  const out: string[] = [];
  const started = cpuMs();
  for (const chunk of [...chunks, null]) {
    for (const item of chunk === null ? parser.end() : parser.write(chunk)) {
      if (item.type !== 'url') continue;
      if (!map) urls += 1;
      else {
        mapper([item.entry], ref, out);
        urls += out.length;
        out.length = 0;
      }
    }
  }
  const elapsed = cpuMs() - started;
  if (urls !== 50_000) throw new Error(`expected 50000 URLs, got ${urls}`);
  return elapsed;
}

function summary(times: number[]): string {
  const sorted = [...times].sort((a, b) => a - b);
  return `median ${sorted[Math.floor(sorted.length / 2)]?.toFixed(1)} ms, best ${sorted[0]?.toFixed(1)} ms`;
}

// The mapper alone over entries parsed once: the dedupe's own cost per URL, without the parser's noise.
const entries: ParsedUrl[] = [];
{
  const parser = createSitemapParser({ sitemapUrl: ref.url, maxUrlLength: 2048 });
  for (const item of [...parser.write(bytes), ...parser.end()]) if (item.type === 'url') entries.push(item.entry);
}
function mapOnly(): number {
  const mapper = createUrlMapper();
  const out: string[] = [];
  const started = cpuMs();
  mapper(entries, ref, out);
  const urls = out.length;
  const elapsed = cpuMs() - started;
  if (urls !== 50_000) throw new Error(`expected 50000 URLs, got ${urls}`);
  return elapsed;
}
// Ten warm-up rounds first (not counted): the mapper alone is short enough for the JIT to matter.
const WARM_UP = 10;
const alone: number[] = [];
for (let round = 0; round < WARM_UP + 10 * rounds; round++) {
  const ms = mapOnly();
  if (round >= WARM_UP) alone.push(ms);
}

const mapped: number[] = [];
const bare: number[] = [];
for (let round = 0; round < rounds + 3; round++) {
  const withMap = run(true);
  const without = run(false);
  if (round >= 3) {
    mapped.push(withMap);
    bare.push(without);
  }
}
process.stdout.write(`50,000-URL urlset (${(bytes.length / 1e6).toFixed(1)} MB), ${rounds} rounds\n`);
process.stdout.write(`URL mapper alone:  ${summary(alone)} (x${alone.length} rounds)\n`);
process.stdout.write(`parse + URL mapper: ${summary(mapped)}\nparse only:         ${summary(bare)}\n`);
