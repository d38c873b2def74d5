import { createService, enableBackgroundSyncs, startScheduleTimer, type FactoryConfig } from '../../lib/service/index.js';
import { UsageError, type Io } from '../io.js';
import { intFlag } from '../options.js';
import { serviceConfig } from '../service-config.js';

/** The flags of `worker`. */
export interface WorkerFlags {
  concurrency?: string;
  perHost?: string;
  allowPrivate?: boolean;
  allowHost?: string[];
  resolve?: string[];
  db?: string;
  verbose?: boolean;
}

/** Defaults of a worker: slices mostly wait on the network, so a few at once per core; two per site host. */
const DEFAULT_CONCURRENCY = 8;
const DEFAULT_PER_HOST = 2;

/** The refusals of a worker that could not share the work: an embedded database or a job store of its own. */
function sharedStateRefusal(config: FactoryConfig): string | null {
  if (config.database.type !== 'postgres')
    return "worker needs a Postgres inventory (DATABASE_URL or --db postgres://...): PGlite is one process's database, and `serve` drives its syncs itself";
  if (config.store.type === 'memory')
    return "worker needs a shared job store (REDIS_URL, or UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN): a job in this process's memory is invisible to the others";
  return null;
}

/**
 * `crawler-factory worker [--concurrency N] [--per-host N] [--db URL]`: runs sync slices from the pg-boss queue in the
 * inventory's Postgres, and starts due scheduled syncs (one tick at a time across the fleet), until SIGINT/SIGTERM;
 * slices in flight then commit what they read and hand the rest back to the queue. Any number of workers share one
 * database and one Redis.
 */
export async function workerCommand(_args: string[], flags: WorkerFlags, io: Io): Promise<number> {
  const concurrency = intFlag('concurrency', flags.concurrency, 1, 256) ?? DEFAULT_CONCURRENCY;
  const perHost = intFlag('per-host', flags.perHost, 1, 256) ?? DEFAULT_PER_HOST;
  const { config, described } = await serviceConfig(flags, io.env);
  const refusal = sharedStateRefusal(config);
  if (refusal !== null) throw new UsageError(refusal);
  const service = createService(config);
  const slices = await enableBackgroundSyncs(service, { concurrency, perHost });
  const schedules = startScheduleTimer(service);
  io.stderr.write(`worker ${process.pid}: ${concurrency} slice(s) at once, ${perHost} per site host, on ${described}\n`);
  await new Promise<void>((stop) => {
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await schedules.stop();
  await slices.stop();
  // The store (a Redis connection) and database would otherwise hold the process open.
  await service.release();
  return 0;
}
