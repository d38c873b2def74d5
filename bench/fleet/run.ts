// Fleet benchmark: the same fleet of loopback sites (slow, dripped sitemaps, each with a due schedule) synced by 1
// `worker` process and by 4 (the built bin, on one Postgres and one Redis), each run from a fresh inventory.
//   npm run build && npm run bench:fleet -- [--sites 200] [--workers 1,4] [--concurrency 4] [--drip-ms 150]
// Prints the wall time from the workers' start to the last sync's end, syncs/s, and the speed-up of each run over the
// first; results also in .tmp/bench-fleet.json (git-ignored).
import { mkdir, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { prepareFleetState, startDripSites, startWorker, syncStates, untilAllEnded, type DripSites } from '../../lib/dispatch/pgboss/__tests__/worker-fleet.js';

const { values } = parseArgs({
  options: {
    sites: { type: 'string', default: '200' },
    workers: { type: 'string', default: '1,4' },
    concurrency: { type: 'string', default: '4' },
    'drip-ms': { type: 'string', default: '150' },
  },
});
const SITES = Number(values.sites);
const CONCURRENCY = Number(values.concurrency);
const SHAPE = { children: 3, urlsPerChild: 100, chunks: 4, chunkDelayMs: Number(values['drip-ms']) };

/** One run: `workers` processes from a fresh inventory until every due site's sync has ended. */
async function run(sites: DripSites, workers: number): Promise<{ workers: number; seconds: number; syncsPerSecond: number; states: Record<string, number> }> {
  const fleet = await prepareFleetState(sites.rootUrls);
  try {
    const started = Date.now();
    const processes = await Promise.all(Array.from({ length: workers }, () => startWorker(fleet.env, CONCURRENCY)));
    try {
      const states = await untilAllEnded(fleet.test.db, SITES, 600_000);
      const seconds = (Date.now() - started) / 1000;
      return { workers, seconds, syncsPerSecond: SITES / seconds, states };
    } finally {
      await Promise.all(processes.map((worker) => worker.stop()));
      process.stderr.write(`  final states: ${JSON.stringify(await syncStates(fleet.test.db))}\n`);
      const [spread] = await fleet.test.db.query(
        `SELECT extract(epoch FROM max(started_at) - min(started_at))::float AS "startSpreadS",
                extract(epoch FROM avg(finished_at - started_at))::float AS "avgSyncS",
                extract(epoch FROM max(finished_at) - min(started_at))::float AS "firstStartToLastEndS" FROM syncs`,
      );
      process.stderr.write(`  syncs: ${JSON.stringify(spread)}\n`);
    }
  } finally {
    await fleet.close();
  }
}

const sites = await startDripSites(SITES, SHAPE);
const results = [];
try {
  for (const workers of values.workers.split(',').map(Number)) {
    process.stderr.write(`${workers} worker(s) x ${CONCURRENCY} slices, ${SITES} sites ...\n`);
    results.push(await run(sites, workers));
  }
} finally {
  await sites.close();
}
const base = results[0];
console.log(`fleet: ${SITES} sites x ${sites.urlsPerSite} URLs (3 sitemaps each, 4 chunks ${SHAPE.chunkDelayMs} ms apart), ${CONCURRENCY} slices per worker`);
for (const result of results) {
  const speedUp = base ? base.seconds / result.seconds : 1;
  console.log(
    `  ${result.workers} worker(s): ${result.seconds.toFixed(1)} s, ${result.syncsPerSecond.toFixed(2)} syncs/s, speed-up ${speedUp.toFixed(2)}x  ${JSON.stringify(result.states)}`,
  );
}
await mkdir('.tmp', { recursive: true });
await writeFile('.tmp/bench-fleet.json', JSON.stringify({ sites: SITES, shape: SHAPE, concurrency: CONCURRENCY, results }, null, 2));
