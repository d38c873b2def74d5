import { UsageError, type Io } from '../io.js';
import { intFlag, netPolicyFrom, type CommonFlags } from '../options.js';
import { MIN_BUDGET_MS } from './estimate.js';
import { databaseUrlFrom } from '../../lib/inventory/db-errors.js';
import { openInventoryDb, DEFAULT_DB_DIR } from '../../lib/inventory/open-db.js';
import type { Sync } from '../../lib/inventory/schemas.js';
import { ensureSite } from '../../lib/inventory/sites.js';
import { advanceSync, startSync, type SyncRuntime } from '../../lib/inventory/sync-driver.js';
import { assertSyncId, getSync, getSyncDetail } from '../../lib/inventory/syncs.js';
import { openJobStore } from '../../lib/store/open-job-store.js';

/** The flags of `sync`. */
export interface SyncFlags extends CommonFlags {
  site?: string;
  db?: string;
  resume?: string;
  budget?: string;
  full?: boolean;
}

/** `sync 3/9 sitemaps · 12,000 urls · 12/12 shards · 40 new · 3 changed · running` on stderr. */
function drawProgress(sync: Sync, stderr: Io['stderr'], final = false): void {
  const errors = Object.values(sync.errors).reduce((sum, n) => sum + n, 0);
  const line =
    `${sync.sitemapsDone}/${sync.sitemapsDone + sync.sitemapsPending} sitemaps · ${sync.urlsFound.toLocaleString('en')} urls · ` +
    `${sync.shardsApplied}/${sync.shardsWritten} shards applied · ${sync.new} new · ${sync.changed} changed · ${sync.returned} returned · ` +
    `${sync.removed} removed · ${sync.unchangedSitemaps} sitemaps unchanged · ${errors} errors · ${sync.state}`;
  stderr.write(`\r\x1b[2K${line}${final ? '\n' : ''}`);
}

async function runToEnd(runtime: SyncRuntime, syncId: string, options: { budgetMs: number; progress: boolean; io: Io }): Promise<Sync> {
  let sync = await getSync(runtime.db, syncId);
  while (sync.state === 'running') {
    sync = await advanceSync(runtime, syncId, { budgetMs: options.budgetMs, workerId: 'cli' });
    if (options.progress) drawProgress(sync, options.io.stderr);
  }
  if (options.progress) drawProgress(sync, options.io.stderr, true);
  return sync;
}

/** Starts the sync of `<rootUrl>` (adding the site if new) or picks up `--resume <syncId>`. */
async function syncToRun(runtime: SyncRuntime, values: { site?: string; resume?: string; full?: boolean }, positionals: string[]): Promise<string> {
  if (values.resume !== undefined) {
    if (positionals.length > 0) throw new UsageError('give either <rootUrl> or --resume <syncId>, not both');
    return assertSyncId(values.resume);
  }
  const [rootUrl] = positionals;
  if (rootUrl === undefined) throw new UsageError('expected a <rootUrl> or --resume <syncId>');
  const site = await ensureSite(runtime.db, { rootUrl, ...(values.site === undefined ? {} : { siteId: values.site }) }, runtime.net);
  return (await startSync(runtime, site.siteId, { full: values.full === true })).syncId;
}

/**
 * `crawler-factory sync <rootUrl> [--site ID] [--db DIR] [--resume SYNC_ID]`: a sync of a site into the inventory
 * (DATABASE_URL, else PGlite in --db DIR), run to its end with progress; the final sync row as JSON on stdout.
 */
export async function syncCommand(positionals: string[], values: SyncFlags, io: Io): Promise<number> {
  const budgetMs = intFlag('budget', values.budget, MIN_BUDGET_MS, 900_000) ?? 10_000;
  const net = netPolicyFrom(values);
  const db = await openInventoryDb({ databaseUrl: databaseUrlFrom(io.env), dataDir: values.db ?? DEFAULT_DB_DIR });
  const store = await openJobStore(io.env);
  try {
    const runtime = { db, store, net };
    const syncId = await syncToRun(runtime, values, positionals);
    const where = db.kind === 'postgres' ? 'Postgres (DATABASE_URL)' : `PGlite in ${values.db ?? DEFAULT_DB_DIR}`;
    const resumable = store.kind === 'memory' ? 'the memory job store: resumable only within this process (set REDIS_URL to resume later)' : `the ${store.kind} job store: resume with --resume ${syncId}`;
    if (values.quiet !== true) io.stderr.write(`sync ${syncId} into ${where}, on ${resumable}\n`);
    const progress = (values.progress === true || io.stderrIsTTY) && values.quiet !== true;
    const sync = await runToEnd(runtime, syncId, { budgetMs, progress, io });
    io.stdout.write(`${JSON.stringify(await getSyncDetail(db, sync.syncId), null, 2)}\n`);
    return sync.state === 'done' ? 0 : 1;
  } finally {
    await store.close();
    await db.close();
  }
}
