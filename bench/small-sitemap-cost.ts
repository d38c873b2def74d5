/**
 * Cost of one small sitemap apart from the network: a parser and a URL mapper made, a one-URL document parsed and
 * mapped, the mapper released (what every child of an index of tiny sitemaps costs before any I/O). Runs `--docs`
 * documents a round, `--rounds` rounds, and prints the median and best CPU µs a document.
 * Run: node bin/run-ts.mjs bench/small-sitemap-cost.ts [--docs 20000] [--rounds 9]
 * (for figures without the tsx loader's cost, bundle it as `npm run bench` does its contenders; see bench/README.md)
 */
import { createSitemapParser } from '../lib/factory/parse/index.js';
import { createUrlMapper } from '../lib/factory/sitemap.js';
import { cpuMs } from './process-cpu.js';
import { positiveIntArg } from './script-args.js';

const docs = positiveIntArg('--docs', 20_000);
const rounds = positiveIntArg('--rounds', 9);
const origin = 'http://127.0.0.1:8080';
const documents = Array.from({ length: docs }, (_, i) =>
  Buffer.from(
    `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${origin}/p/${i}</loc></url></urlset>`,
  ),
);

function round(): number {
  const out: string[] = [];
  const started = cpuMs();
  for (const [i, document] of documents.entries()) {
    const ref = { url: `${origin}/c/${i}.xml`, depth: 1, parent: null };
    const parser = createSitemapParser({ sitemapUrl: ref.url, maxUrlLength: 2048 });
    const mapper = createUrlMapper();
    for (const item of [...parser.write(document), ...parser.end()]) if (item.type === 'url') mapper([item.entry], ref, out);
    mapper.release();
  }
  const elapsed = cpuMs() - started;
  if (out.length !== docs) throw new Error(`expected ${docs} URLs, got ${out.length}`);
  return (elapsed * 1000) / docs;
}

const times: number[] = [];
// The first rounds warm the JIT up and are not counted.
for (let at = 0; at < rounds + 2; at++) {
  const perDocument = round();
  if (at >= 2) times.push(perDocument);
}
times.sort((a, b) => a - b);
process.stdout.write(
  `one-URL sitemap, parse + URL mapper: median ${times[Math.floor(times.length / 2)]?.toFixed(2)} µs, best ${times[0]?.toFixed(2)} µs a document (${docs} a round, ${rounds} rounds)\n`,
);
