// Quick parser profile, no network: `node bin/run-ts.mjs bench/profile-parse.ts [urls] [fast,general]`.
// Parses bench-tree children (50,000 URLs each) in 64 KiB writes with each tokenizer, three rounds,
// printing CPU time (steadier than wall time on a shared machine). For a flame graph, bundle it with
// esbuild and run `node --cpu-prof` on the bundle.
import { benchChildChunks } from '../test/sites/bench-tree.js';
import type { XmlTokenizer } from '../lib/factory/parse/fast/xml-reader.js';
import { createSitemapParser } from '../lib/factory/parse/sitemap-parser.js';

const PER_CHILD = 50_000;
const WRITE_BYTES = 65_536;
const urls = Number(process.argv[2] ?? 200_000);
const tokenizers = (process.argv[3] ?? 'fast,general').split(',') as XmlTokenizer[];
const docs = Array.from({ length: Math.max(1, Math.round(urls / PER_CHILD)) }, (_, child) =>
  Buffer.concat([...benchChildChunks('http://127.0.0.1:8080', child, PER_CHILD)].map((chunk) => Buffer.from(chunk))),
);

function parseAll(tokenizer: XmlTokenizer): number {
  let items = 0;
  for (const doc of docs) {
    const parser = createSitemapParser({ sitemapUrl: 'http://127.0.0.1:8080/child.xml', maxUrlLength: 2048 }, tokenizer);
    for (let at = 0; at < doc.length; at += WRITE_BYTES) items += parser.write(doc.subarray(at, at + WRITE_BYTES)).length;
    items += parser.end().length;
  }
  return items;
}

const bytes = docs.reduce((sum, doc) => sum + doc.length, 0);
for (let round = 1; round <= 3; round++) {
  for (const tokenizer of tokenizers) {
    const before = process.cpuUsage();
    const items = parseAll(tokenizer);
    const used = process.cpuUsage(before);
    const seconds = (used.user + used.system) / 1e6;
    process.stdout.write(
      `round ${round} ${tokenizer}: ${items} URLs, ${seconds.toFixed(2)} s CPU, ${Math.round(items / seconds)} URLs/s, ${(bytes / 1e6 / seconds).toFixed(1)} MB/s\n`,
    );
  }
}
