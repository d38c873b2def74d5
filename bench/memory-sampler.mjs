// Where a contender's memory goes: `node --import ./bench/memory-sampler.mjs node_modules/.cache/crawler-factory-bench/engine.mjs URL`
// (a bundle `npm run bench` built) samples process.memoryUsage() every 25 ms and prints each figure's maximum
// on stderr at exit. arrayBuffers climbing far above the live set between full GCs means dead Buffers were
// promoted to V8's old space and wait there for a mark-compact. Diagnosis only: it does not run in the bench.
const FIELDS = ['rss', 'heapTotal', 'heapUsed', 'external', 'arrayBuffers'];
const max = Object.fromEntries(FIELDS.map((field) => [field, 0]));

function sample() {
  const usage = process.memoryUsage();
  for (const field of FIELDS) max[field] = Math.max(max[field], usage[field]);
}

setInterval(sample, 25).unref();
process.on('exit', () => {
  sample();
  const mib = Object.fromEntries(FIELDS.map((field) => [field, Number((max[field] / 1048576).toFixed(1))]));
  process.stderr.write(`memory max (MiB): ${JSON.stringify(mib)}; maxRSS ${(process.resourceUsage().maxRSS / 1024).toFixed(1)}\n`);
});
