// The site list and the health counts on a fleet: N sites (default 2,000), each with S ended syncs and a schedule, half
// of them due; times a first page of 50, a search, a page deep in the list, every site unpaged, and the health stats.
// Postgres (DATABASE_URL, a schema of its own) or PGlite in memory (--db pglite). Medians of --runs (default 20).
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { inventoryStats } from '../lib/inventory/inventory-stats.js';
import { openInventoryDb } from '../lib/inventory/open-db.js';
import { listSitePage, SiteListQuerySchema } from '../lib/inventory/site-list.js';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const { values } = parseArgs({
  options: {
    sites: { type: 'string', default: '2000' },
    syncs: { type: 'string', default: '5' },
    runs: { type: 'string', default: '20' },
    db: { type: 'string', default: 'postgres' },
  },
});
const SITES = Number(values.sites);
const SYNCS = Number(values.syncs);
const RUNS = Number(values.runs);

async function median(work: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i += 1) {
    const started = performance.now();
    await work();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] ?? 0;
}

const schema = `bench_site_list_${process.pid}`;
const postgres = values.db === 'postgres';
const db = await openInventoryDb(postgres ? { databaseUrl: DATABASE_URL, schema } : { dataDir: null });
try {
  await db.query(
    `INSERT INTO sites (site_id, root_url, created_at, schedule_ms, next_sync_at)
     SELECT 'site-' || lpad(n::text, 5, '0'), 'https://www' || n || '.example/', now() + n * interval '1 millisecond', 86400000,
            now() + CASE WHEN n % 2 = 0 THEN interval '-1 hour' ELSE interval '1 hour' END
     FROM generate_series(0, $1 - 1) n`,
    [SITES],
  );
  await db.query(
    `INSERT INTO syncs (sync_id, site_id, job_id, state, started_at, finished_at, seen_count)
     SELECT lpad(to_hex(n), 11, '0') || lpad(to_hex(k), 11, '0'), 'site-' || lpad(n::text, 5, '0'), 'job', 'done',
            now() - (k + 1) * interval '1 day', now() - (k + 1) * interval '1 day' + interval '1 minute', 1000
     FROM generate_series(0, $1 - 1) n, generate_series(0, $2 - 1) k`,
    [SITES, SYNCS],
  );
  const page = (raw: Record<string, string>) => listSitePage(db, SiteListQuerySchema.parse(raw));
  let deep = await page({ limit: '50' });
  for (let i = 0; i < Math.floor(SITES / 100) && deep.nextCursor; i += 1) deep = await page({ limit: '50', cursor: deep.nextCursor });
  const cursor = deep.nextCursor ?? '';
  const rows: Array<[string, number]> = [
    ['first page of 50', await median(() => page({ limit: '50' }))],
    ['search (q=site-01, page of 50)', await median(() => page({ q: 'site-01', limit: '50' }))],
    [`page of 50 after ${Math.floor(SITES / 2)} sites (cursor)`, await median(() => page({ limit: '50', ...(cursor ? { cursor } : {}) }))],
    [`every site unpaged (${SITES})`, await median(() => page({}))],
    ['health counts (inventoryStats)', await median(() => inventoryStats(db))],
  ];
  console.log(`| ${values.db}, ${SITES} sites x ${SYNCS} syncs, median of ${RUNS} | ms |\n|---|---:|`);
  for (const [what, ms] of rows) console.log(`| ${what} | ${ms.toFixed(1)} |`);
} finally {
  await db.close();
  if (postgres) {
    const admin = new pg.Client({ connectionString: DATABASE_URL });
    await admin.connect();
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
  }
}
