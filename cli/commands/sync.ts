import { UsageError, type Io } from '../io.js';
import { dbTarget, describeDb, openDbTarget, redactedUrl, type DbTarget } from '../db-target.js';
import { intFlag, netPolicyFrom, scheduleFlag, type CommonFlags } from '../options.js';
import { withRunningSyncWayOut } from '../running-sync.js';
import { withSealingSecret } from '../folder-secret.js';
import { forgetRunSettings, loadRunSettings, pickFlags, resumeFlags, saveRunSettings } from '../run-settings.js';
import { stopOnSignals } from '../stop-signals.js';
import { optionsPatchFrom } from './sites.js';
import { MIN_BUDGET_MS } from './estimate.js';
import {
  DEFAULT_DB_DIR,
  type Sync,
  ensureSite,
  findSite,
  patchOptions,
  siteIdFromUrl,
  type SiteOptions,
  advanceSync,
  applyStopFor,
  startSync,
  stopSync,
  type SyncRuntime,
  assertSyncId,
  getSync,
  getSyncDetail,
} from '../../lib/inventory/index.js';
import type { JobStore } from '../../lib/store/index.js';
import { factoryConfig, openConfiguredStore } from '../../lib/service/index.js';

/** The flags of `sync`. */
export interface SyncFlags extends CommonFlags {
  site?: string;
  db?: string;
  resume?: string;
  budget?: string;
  full?: boolean;
  schedule?: string;
}

/** What a sync keeps beside it for `--resume` (the rest of its options are the site's, in the inventory). */
const SYNC_SETTINGS = ['allowPrivate', 'allowHost', 'resolve', 'full', 'db'] as const;

/** Fetch flags a site keeps as its options: a sync that adds the site gives them to it (as `sites set` would). */
const SITE_OPTION_FLAGS = ['timeout', 'concurrency', 'maxDepth', 'maxUrls', 'userAgent'] as const;
/** Fetch flags `sync` takes (as every fetching command) that no site keeps: refused, never ignored. */
const NOT_SITE_OPTIONS = ['header', 'cookie', 'proxy', 'rate', 'retries'] as const;

const flagNames = (keys: string[]): string => keys.map((key) => `--${key.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`).join(', ');

/**
 * The options a sync gives the site it adds, from its flags; refused (exit 2) when a flag is not a site option, or the
 * site exists already (its options are its own: `sites set` changes them). A resume runs with its job's: noted.
 */
async function newSiteOptions(runtime: SyncRuntime, values: SyncFlags, rootUrl: string): Promise<SiteOptions | undefined> {
  const refused = Object.keys(pickFlags(values, NOT_SITE_OPTIONS));
  if (refused.length > 0)
    throw new UsageError(`${flagNames(refused)}: not kept with a site, so a sync cannot use them (a site keeps ${flagNames([...SITE_OPTION_FLAGS])})`);
  const given = Object.keys(pickFlags(values, SITE_OPTION_FLAGS));
  if (given.length === 0) return undefined;
  const siteId = values.site ?? (URL.canParse(rootUrl) ? siteIdFromUrl(new URL(rootUrl)) : undefined);
  if (siteId !== undefined && (await findSite(runtime.db, siteId)) !== null)
    throw new UsageError(
      `${flagNames(given)}: site ${siteId} exists with its own options; change them with: crawler-factory sites set ${siteId} ${flagNames(given)} ...`,
    );
  return patchOptions({}, optionsPatchFrom(values));
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

/** Advances the sync until it ends or a signal stops it (the slice then commits what it read and releases its leases). */
async function runToEnd(runtime: SyncRuntime, syncId: string, how: { budgetMs: number; progress: boolean; io: Io; signal: AbortSignal }): Promise<Sync> {
  let sync = await getSync(runtime.db, syncId);
  while (sync.state === 'running' && !how.signal.aborted) {
    sync = await advanceSync(runtime, syncId, { budgetMs: how.budgetMs, workerId: 'cli', signal: how.signal, ...applyStopFor(runtime.store, how.signal) });
    if (how.progress) drawProgress(sync, how.io.stderr);
  }
  if (how.progress) drawProgress(sync, how.io.stderr, true);
  return sync;
}

/** Starts the sync of `<rootUrl>` (adding the site if new) or picks up `--resume <syncId>`. */
async function syncToRun(runtime: SyncRuntime, values: SyncFlags, rootUrl: string | undefined): Promise<string> {
  if (values.resume !== undefined) return values.resume;
  if (rootUrl === undefined) throw new UsageError('expected a <rootUrl> or --resume <syncId>');
  const schedule = scheduleFlag(values.schedule);
  const options = await newSiteOptions(runtime, values, rootUrl);
  const site = await ensureSite(
    runtime.db,
    {
      rootUrl,
      ...(values.site === undefined ? {} : { siteId: values.site }),
      ...(schedule === undefined ? {} : { schedule }),
      ...(options === undefined ? {} : { options }),
    },
    runtime.net,
  );
  return (await withRunningSyncWayOut(() => startSync(runtime, site.siteId, { full: values.full === true }))).syncId;
}

/** The command that continues this sync, and what the environment must still say (never a password). */
function resumeHint(syncId: string, target: DbTarget, store: JobStore): string {
  const db =
    target.kind === 'pglite' ? (target.dir === DEFAULT_DB_DIR ? '' : ` --db ${target.dir}`) : target.from === '--db' ? ` --db ${redactedUrl(target.url)}` : '';
  const env = [
    target.kind === 'postgres' && target.from === 'DATABASE_URL' ? 'DATABASE_URL' : null,
    store.kind === 'redis' ? 'REDIS_URL' : store.kind === 'upstash' ? 'UPSTASH_REDIS_REST_URL/TOKEN' : null,
  ].filter(Boolean);
  return `crawler-factory sync --resume ${syncId}${db}${env.length > 0 ? ` (with ${env.join(' and ')} set as now)` : ''}`;
}

/** The flags this run goes with: as given, or (a resume) the run's stored ones overridden by those given again. */
async function effectiveFlags(given: SyncFlags, io: Io): Promise<SyncFlags> {
  if (given.resume === undefined) return given;
  const { flags, notes } = resumeFlags(given, await loadRunSettings(given.resume), SYNC_SETTINGS, given.resume);
  if (given.quiet !== true) for (const note of notes) io.stderr.write(`${note}\n`);
  return flags;
}

/**
 * `crawler-factory sync <rootUrl> [--site ID] [--db DIR|URL] [--resume SYNC_ID]`: a sync of a site into the inventory
 * (Postgres from --db postgres://... or DATABASE_URL, else PGlite in --db DIR), run to its end with progress; the
 * final sync row as JSON on stdout. SIGINT/SIGTERM stop it resumably: what was read is committed, the resume command
 * is printed, exit 0.
 */
export async function syncCommand(positionals: string[], given: SyncFlags, io: Io): Promise<number> {
  const budgetMs = intFlag('budget', given.budget, MIN_BUDGET_MS, 900_000) ?? 10_000;
  const [rootUrl] = positionals;
  if (given.resume !== undefined && rootUrl !== undefined) throw new UsageError('give either <rootUrl> or --resume <syncId>, not both');
  if (given.resume !== undefined) assertSyncId(given.resume);
  if (given.resume !== undefined && given.schedule !== undefined) throw new UsageError('--schedule is set when a sync starts, not on --resume');
  scheduleFlag(given.schedule);
  const values = await effectiveFlags(given, io);
  const fixed = Object.keys(pickFlags(given, [...SITE_OPTION_FLAGS, ...NOT_SITE_OPTIONS]));
  if (given.resume !== undefined && fixed.length > 0 && values.quiet !== true)
    io.stderr.write(`resume: ${flagNames(fixed)} not applied: the sync goes on with the options its job was created with\n`);
  const net = netPolicyFrom(values);
  const target = dbTarget(values.db, io.env);
  const signals = stopOnSignals();
  try {
    const db = await openDbTarget(target);
    try {
      const store = await openConfiguredStore(await withSealingSecret(factoryConfig(io.env)));
      try {
        return await syncWith({ db, store, net }, { values, rootUrl, target, budgetMs, io, signal: signals.signal });
      } finally {
        await store.close();
      }
    } finally {
      await db.close();
    }
  } finally {
    signals.dispose();
  }
}

async function syncWith(
  runtime: SyncRuntime,
  run: { values: SyncFlags; rootUrl: string | undefined; target: DbTarget; budgetMs: number; io: Io; signal: AbortSignal },
): Promise<number> {
  const { values, io, store } = { ...run, store: runtime.store };
  if (run.signal.aborted && values.resume === undefined) {
    // Stopped while the inventory was opening: nothing was started, so nothing needs resuming.
    io.stderr.write('stopped before the sync started: nothing was written\n');
    return 130;
  }
  const syncId = await syncToRun(runtime, values, run.rootUrl);
  if (values.resume === undefined) await saveRunSettings({ command: 'sync', id: syncId, flags: pickFlags(values, SYNC_SETTINGS) });
  const resumable =
    store.kind === 'memory'
      ? 'the memory job store: resumable only within this process (set REDIS_URL to resume later)'
      : `the ${store.kind} job store: resume with --resume ${syncId}`;
  if (values.quiet !== true) io.stderr.write(`sync ${syncId} into ${describeDb(run.target)}, on ${resumable}\n`);
  const progress = (values.progress === true || io.stderrIsTTY) && values.quiet !== true;
  let sync = await runToEnd(runtime, syncId, { budgetMs: run.budgetMs, progress, io, signal: run.signal });
  // Still running here means a signal stopped it: a resumable stop, exit 0 (as `job run`).
  const interrupted = sync.state === 'running';
  if (interrupted && store.kind === 'memory') {
    // The job dies with this process: a sync left `running` would only block the site's next sync.
    sync = await stopSync(runtime, syncId);
    io.stderr.write(`stopped: sync ${syncId} ended stopped (the memory job store cannot resume it; set REDIS_URL to make syncs resumable)\n`);
  } else if (interrupted) {
    io.stderr.write(`stopped: progress committed and leases released; continue with: ${resumeHint(syncId, run.target, store)}\n`);
  }
  if (sync.state !== 'running') await forgetRunSettings(syncId);
  io.stdout.write(`${JSON.stringify(await getSyncDetail(runtime.db, sync.syncId), null, 2)}\n`);
  return sync.state === 'done' || interrupted ? 0 : 1;
}
