import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import PgBoss from 'pg-boss';
import { toDatabaseFailure } from '../../inventory/db-errors.js';
import type { SyncRuntime } from '../../inventory/sync-driver.js';
import { createLogger } from '../../utils/logger.js';
import type { SliceDispatcher } from '../slice-dispatcher.js';
import { HostSlots } from './host-slots.js';
import type { PgBossSettings } from '../../config/factory-config.js';
import { endDeadSync, runSliceJob, type SliceJobContext } from './slice-job.js';
import { createSliceQueues, sendSlice, sliceQueues, type SliceQueues } from './slice-queue.js';

const log = createLogger('dispatch:pgboss');

/** How long a stop waits for the slices in flight (they were told to stop, and commit within seconds). */
const STOP_TIMEOUT_MS = 30_000;

/** How often an idle worker asks the queue for work (pg-boss polls; its floor is 0.5 s). */
const POLL_SECONDS = 0.5;

/** How a pg-boss engine runs: the database, its settings, how many slices at once, and the syncs' runtime. */
export interface PgBossEngineOptions {
  databaseUrl: string;
  settings: PgBossSettings;
  /** The runtime of every slice, asked for per job (the network policy is read on every slice). */
  runtime: () => Promise<SyncRuntime>;
  /** Slices this process runs at once; 0 only queues (a process that serves but does not work). */
  concurrency: number;
  /** Slices of one site host running at once across every worker on this database. */
  perHost: number;
}

// Workers that start together on a fresh database race to create pg-boss's tables and the queues' partitions: Postgres
// may end one of them with a deadlock (40P01) or a duplicate (23505). Both roll back whole, so starting again is safe.
const START_RACE_CODES = new Set(['40P01', '23505']);
const START_ATTEMPTS = 5;

/** The database's code when the error is that race, else null. */
function startRaceCode(error: unknown): string | null {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && START_RACE_CODES.has(code) ? code : null;
}

function newBoss(options: PgBossEngineOptions): PgBoss {
  const { settings } = options;
  const boss = new PgBoss({
    connectionString: options.databaseUrl,
    schema: settings.schema,
    application_name: 'crawler-factory-worker',
    // One connection per slice in flight (fetch, send, complete) and two for the supervisor and the queue's callers.
    max: options.concurrency + 2,
    schedule: false,
    // Expired slices are found within a quarter of their expiry; one process of the fleet does it per interval.
    maintenanceIntervalSeconds: Math.max(1, Math.floor(settings.expireSeconds / 4)),
  });
  boss.on('error', (error: Error) => log.warn({ event: 'pgboss_error', err: error }, 'the queue engine reported an error: it retries'));
  return boss;
}

/** Starts pg-boss and creates the queues, again after a race with another worker starting at the same moment. */
async function startBoss(options: PgBossEngineOptions, queues: SliceQueues): Promise<PgBoss> {
  for (let attempt = 1; ; attempt += 1) {
    const boss = newBoss(options);
    try {
      await boss.start();
      await createSliceQueues(boss, queues, options.settings);
      return boss;
    } catch (error) {
      await boss.stop({ graceful: false, wait: false }).catch(() => undefined);
      const code = startRaceCode(error);
      if (code === null || attempt >= START_ATTEMPTS) throw toDatabaseFailure(error);
      // An expected race, handled here: one line with the database's code, no stack.
      log.info({ event: 'pgboss_start_race', attempt, code }, 'another worker was creating the queue at the same moment: starting again');
      await sleep(100 + Math.random() * 400 * attempt);
    }
  }
}

/**
 * Starts the pg-boss engine on the inventory's Postgres: sync slices become jobs of a `short` queue (one waiting slice
 * per sync), `concurrency` workers take them, at most `perHost` per site host across the fleet, and slices that failed every
 * retry end their sync `failed` through the dead-letter queue. A database that cannot be reached is `store_unavailable`.
 */
export async function startPgBossEngine(options: PgBossEngineOptions): Promise<SliceDispatcher> {
  const queues = await sliceQueues((await options.runtime()).db);
  const boss = await startBoss(options, queues);
  const controller = new AbortController();
  // One connection per slice in flight holds its host's slot.
  const hosts = new HostSlots(options.databaseUrl, queues.slices, options.perHost, options.concurrency);
  try {
    const base = { boss, queues, settings: options.settings, runtime: options.runtime, hosts, signal: controller.signal };
    for (let slot = 0; slot < options.concurrency; slot += 1) {
      const context: SliceJobContext = { ...base, workerId: `${hostname()}:${process.pid}:${slot}` };
      await boss.work(queues.slices, { batchSize: 1, pollingIntervalSeconds: POLL_SECONDS }, async ([job]) => (job ? runSliceJob(context, job) : undefined));
    }
    if (options.concurrency > 0) {
      const context: SliceJobContext = { ...base, workerId: `${hostname()}:${process.pid}:dead-letters` };
      await boss.work(queues.deadLetters, { batchSize: 1, pollingIntervalSeconds: 2, includeMetadata: true }, async ([job]) =>
        job ? endDeadSync(context, job) : undefined,
      );
    }
  } catch (error) {
    await boss.stop({ graceful: false, wait: false }).catch(() => undefined);
    await hosts.close().catch(() => undefined);
    throw toDatabaseFailure(error);
  }
  return {
    engine: 'pg-boss',
    continueSync: (_runtime, syncId) => sendSlice(boss, { queues, settings: options.settings }, { syncId }),
    depth: () => boss.getQueueSize(queues.slices, { before: 'completed' }),
    stop: async () => {
      controller.abort(new Error('the worker is stopping'));
      await boss.stop({ graceful: true, wait: true, timeout: STOP_TIMEOUT_MS });
      await hosts.close();
    },
  };
}
