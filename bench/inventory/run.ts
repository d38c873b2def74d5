// Inventory sink benchmark: rows/s upserted into Postgres and PGlite for a first sync of N URLs and a re-sync with 1%
// changed, and the process's peak RSS sampled throughout (it must stay flat: shards are generated, applied, dropped).
//   npm run bench:inventory -- [--urls 1000000] [--pglite-urls 200000] [--db both|postgres|pglite]
// Each pass also times a bare 500-row unnest upsert of the same rows into the same `urls` table and indexes, shard by
// shard in turn with the sink (`vsBare`: the sink's time over the bare one's; `syncVsBare` adds the sync's removal step).
// Results: .tmp/bench-inventory.json (git-ignored) and a summary on stdout.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { applyShard, BATCH_ROWS, prepareRows } from '../../lib/inventory/apply-shard.js';
import type { InventoryDb } from '../../lib/inventory/db.js';
import { openInventoryDb } from '../../lib/inventory/open-db.js';
import { removeWhatIsGone } from '../../lib/inventory/removal.js';
import { createSite } from '../../lib/inventory/sites.js';
import { finishSync, getSync, insertSync } from '../../lib/inventory/syncs.js';
import type { ShardEntry } from '../../lib/core/types.js';
import { newJobId } from '../../lib/store/job-id.js';

const { values } = parseArgs({
  options: {
    urls: { type: 'string', default: '1000000' },
    'pglite-urls': { type: 'string', default: '200000' },
    db: { type: 'string', default: 'both' },
  },
});
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const SHARD = 1_000;
const SECTIONS = ['/blog/', '/docs/', '/fr/shop/', '/de/shop/', '/news/'];

/** Peak RSS, sampled every 50 ms, and a few samples along the way to show it stays flat. */
class RssProbe {
  peak = 0;
  readonly marks: Array<{ at: string; rssMb: number }> = [];
  private readonly timer = setInterval(() => this.sample(), 50);
  sample(): number {
    const rss = process.memoryUsage().rss;
    this.peak = Math.max(this.peak, rss);
    return rss;
  }
  mark(at: string): void {
    this.marks.push({ at, rssMb: Math.round(this.sample() / 1e6) });
  }
  stop(): void {
    clearInterval(this.timer);
  }
}

// Shard n of the site, generated on demand: `changedEvery` > 0 gives every such URL a new lastmod (the re-sync).
function shardEntries(n: number, changedEvery: number): ShardEntry[] {
  return Array.from({ length: SHARD }, (_, i) => {
    const k = n * SHARD + i;
    const changed = changedEvery > 0 && k % changedEvery === 0;
    return {
      url: `https://bench.example${SECTIONS[k % SECTIONS.length]}page-${k}`,
      lastmod: changed ? '2026-06-01' : '2026-01-01',
      changefreq: 'weekly',
      priority: 0.5,
      source: `https://bench.example/sitemap-${Math.floor(k / 50_000)}.xml`,
      locale: null,
    } satisfies ShardEntry;
  });
}

// The yardstick: the same rows upserted bare into the same `urls` table and indexes (under a site of its own), 500
// rows a statement, one unnest INSERT ... ON CONFLICT DO UPDATE each (autocommit: one round trip, as the sink's part),
// every row written: no comparison, no history, no membership, no counters.
const BARE_SITE = 'bench-bare';
const BARE_UPSERT = `INSERT INTO urls AS u (site_id, url, sitemap_lastmod, changefreq, priority, source_sitemap, locale, path_prefix,
    first_seen_at, last_seen_at, sitemap_synced_at, changed_at, removed_at, last_sync_id)
  SELECT $1, t.url, t.lastmod, t.changefreq, t.priority, t.source, t.locale, t.path_prefix, now(), now(), now(), now(), NULL, $2
  FROM unnest($3::text[], $4::text[], $5::text[], $6::float8[], $7::text[], $8::text[], $9::text[])
    AS t(url, lastmod, changefreq, priority, source, locale, path_prefix)
  ON CONFLICT (site_id, url) DO UPDATE SET sitemap_lastmod = EXCLUDED.sitemap_lastmod, changefreq = EXCLUDED.changefreq,
    priority = EXCLUDED.priority, source_sitemap = EXCLUDED.source_sitemap, locale = EXCLUDED.locale, path_prefix = EXCLUDED.path_prefix,
    last_seen_at = EXCLUDED.last_seen_at, sitemap_synced_at = EXCLUDED.sitemap_synced_at, last_sync_id = EXCLUDED.last_sync_id`;

async function bareUpsert(db: InventoryDb, syncId: string, entries: ShardEntry[]): Promise<void> {
  const { rows } = prepareRows(entries);
  for (let i = 0; i < rows.length; i += BATCH_ROWS) {
    const part = rows.slice(i, i + BATCH_ROWS);
    const columns = [part.map((r) => r.url), part.map((r) => r.lastmod), part.map((r) => r.changefreq), part.map((r) => r.priority)];
    const more = [part.map((r) => r.source), part.map((r) => r.locale), part.map((r) => r.pathPrefix)];
    await db.query(BARE_UPSERT, [BARE_SITE, syncId, ...columns, ...more]);
  }
}

// Shard by shard, the inventory's sink and the bare upsert take turns, so both meet the same load on a shared machine.
async function pass(db: InventoryDb, input: { siteId: string; urls: number; changedEvery: number; probe: RssProbe; label: string }) {
  const sync = await insertSync(db, { syncId: newJobId(), siteId: input.siteId, jobId: newJobId() });
  let upsertMs = 0;
  let bareMs = 0;
  const shards = Math.ceil(input.urls / SHARD);
  for (let n = 0; n < shards; n += 1) {
    const entries = shardEntries(n, input.changedEvery);
    const bareStarted = performance.now();
    await bareUpsert(db, sync.syncId, entries);
    bareMs += performance.now() - bareStarted;
    const started = performance.now();
    await applyShard(db, { syncId: sync.syncId, siteId: input.siteId, shard: n, entries });
    upsertMs += performance.now() - started;
    if (n === Math.floor(shards / 10) || n === Math.floor(shards / 2)) input.probe.mark(`${input.label} ${Math.round((100 * n) / shards)}%`);
  }
  const removalStarted = performance.now();
  await removeWhatIsGone(db, sync, { errors: [], errorsComplete: true, unchanged: [] });
  await finishSync(db, sync.syncId, 'done');
  const removalMs = performance.now() - removalStarted;
  input.probe.mark(`${input.label} 100%`);
  const row = await getSync(db, sync.syncId);
  const result = {
    urls: input.urls,
    upsertMs: Math.round(upsertMs),
    rowsPerSecond: Math.round(input.urls / (upsertMs / 1000)),
    bareMs: Math.round(bareMs),
    bareRowsPerSecond: Math.round(input.urls / (bareMs / 1000)),
    vsBare: Number((upsertMs / bareMs).toFixed(2)),
    // The whole sync: its parts and its end (the removal step and `done`), over the bare upsert.
    removalMs: Math.round(removalMs),
    syncVsBare: Number(((upsertMs + removalMs) / bareMs).toFixed(2)),
    new: row.new,
    changed: row.changed,
    returned: row.returned,
    seen: row.seen,
  };
  process.stdout.write(
    `${input.label}: ${input.urls} URLs, sink ${result.rowsPerSecond} rows/s, bare upsert ${result.bareRowsPerSecond} rows/s, ` +
      `ratio ${result.vsBare}x (with the removal step ${result.syncVsBare}x); new ${row.new}, changed ${row.changed}, seen ${row.seen}\n`,
  );
  return result;
}

async function measure(name: string, db: InventoryDb, urls: number) {
  const probe = new RssProbe();
  probe.mark(`${name} start`);
  await createSite(db, { rootUrl: 'https://bench.example/', siteId: 'bench' });
  await createSite(db, { rootUrl: 'https://bare.example/', siteId: BARE_SITE });
  const first = await pass(db, { siteId: 'bench', urls, changedEvery: 0, probe, label: `${name} first` });
  const resync = await pass(db, { siteId: 'bench', urls, changedEvery: 100, probe, label: `${name} resync` });
  probe.stop();
  const result = { db: name, urls, first, resync, peakRssMb: Math.round(probe.peak / 1e6), rss: probe.marks };
  process.stdout.write(`${JSON.stringify(result)}\n`);
  return result;
}

async function postgres(urls: number) {
  const schema = `bench_inventory_${process.pid}`;
  const db = await openInventoryDb({ databaseUrl: DATABASE_URL, schema });
  try {
    return await measure('postgres', db, urls);
  } finally {
    await db.close();
    const admin = new pg.Client({ connectionString: DATABASE_URL });
    await admin.connect();
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
  }
}

async function pglite(urls: number) {
  const dir = await mkdtemp(join(tmpdir(), 'bench-pglite-'));
  const db = await openInventoryDb({ dataDir: dir });
  try {
    return await measure('pglite', db, urls);
  } finally {
    await db.close();
    await rm(dir, { recursive: true, force: true });
  }
}

const results = [];
if (values.db === 'both' || values.db === 'postgres') results.push(await postgres(Number(values.urls)));
if (values.db === 'both' || values.db === 'pglite') results.push(await pglite(Number(values['pglite-urls'])));
await mkdir('.tmp', { recursive: true });
await writeFile('.tmp/bench-inventory.json', `${JSON.stringify({ at: new Date().toISOString(), node: process.version, results }, null, 2)}\n`);
process.stdout.write('written .tmp/bench-inventory.json\n');
