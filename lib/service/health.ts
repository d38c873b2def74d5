import { z } from 'zod';
import { ConfigError } from '../config/factory-config.js';
import { inventoryStats, type InventoryStats } from '../inventory/inventory-stats.js';
import { STORE_RETRY_AFTER_SECONDS } from '../store/store-errors.js';
import { createLogger } from '../utils/logger.js';
import { json } from './responses.js';
import type { ServiceContext } from './service.js';

const log = createLogger('http:health');

/** How long each dependency may take to answer before it counts as down: a health check must answer fast. */
export const HEALTH_PROBE_TIMEOUT_MS = 5_000;

// A job shard key no job can own (ids are random, 128 bits): reading it is one GET, a true round trip with no write.
// JobStore has no ping, and one read of a missing key is what a ping would cost.
const PROBE_JOB_ID = 'health_probe_000000000';

// The memory store lives in this process: having it is being able to reach it.
async function pingStore(context: ServiceContext): Promise<void> {
  const store = await context.store();
  if (store.kind !== 'memory') await store.readShard(PROBE_JOB_ID, 0);
}

const PartSchema = z.object({ kind: z.string(), ok: z.boolean(), error: z.string().optional() });

const count = z.number().int().nonnegative();

/**
 * Body of `GET /api/factory/health`. 200 when every part is ok; otherwise 503 with `error.kind` `store_unavailable`
 * naming the failing part, `Retry-After`, and `syncs` / `sites` null when the database could not be read. `queue`: the
 * engine that runs this process's next slices and its depth (slices waiting or running; null when the engine cannot
 * tell, or could not be asked: `error` then says why, and the queue alone never makes the service unhealthy).
 */
export const HealthBodySchema = z.object({
  ok: z.boolean(),
  store: PartSchema.extend({ kind: z.enum(['redis', 'upstash', 'memory']) }),
  database: PartSchema.extend({ kind: z.enum(['postgres', 'pglite']) }),
  queue: z.object({ engine: z.enum(['in-process', 'pg-boss', 'qstash', 'none']), depth: count.nullable(), error: z.string().optional() }),
  syncs: z.object({ running: count, oldestRunningAgeMs: count.nullable(), due: count, oldestDueAgeMs: count.nullable() }).nullable(),
  sites: count.nullable(),
  error: z.object({ kind: z.literal('store_unavailable'), message: z.string() }).optional(),
});
export type HealthBody = z.infer<typeof HealthBodySchema>;

type Probe<T> = { ok: true; value: T } | { ok: false; error: string };

// A dependency that hangs (a blackholed host) must not hang the check: past the timeout it is down.
async function probe<T>(name: string, work: () => Promise<T>): Promise<Probe<T>> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer in ${HEALTH_PROBE_TIMEOUT_MS} ms`)), HEALTH_PROBE_TIMEOUT_MS);
  });
  try {
    return { ok: true, value: await Promise.race([work(), timeout]) };
  } catch (error) {
    // A configuration mistake is not an outage: it stays the 500 `config` naming the variable.
    if (error instanceof ConfigError) throw error;
    log.warn({ event: 'health_probe_failed', part: name, err: error }, `${name} unreachable`);
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  } finally {
    clearTimeout(timer);
  }
}

function syncsOf(stats: InventoryStats): NonNullable<HealthBody['syncs']> {
  return { running: stats.runningSyncs, oldestRunningAgeMs: stats.oldestRunningAgeMs, due: stats.dueSyncs, oldestDueAgeMs: stats.oldestDueAgeMs };
}

/** Checks the job store and the inventory database, reads the inventory's counts and the queue's depth, all at once. */
export async function serviceHealth(context: ServiceContext): Promise<HealthBody> {
  const dispatcher = context.slices.current();
  const [store, database, depth] = await Promise.all([
    probe('store', () => pingStore(context)),
    probe<InventoryStats>('database', async () => inventoryStats(await context.inventory())),
    probe('queue', () => dispatcher.depth()),
  ]);
  const part = <K extends string>(kind: K, result: Probe<unknown>) => (result.ok ? { kind, ok: true } : { kind, ok: false, error: result.error });
  const body: HealthBody = {
    ok: store.ok && database.ok,
    store: part(context.config.store.type, store),
    database: part(context.config.database.type, database),
    queue: depth.ok ? { engine: dispatcher.engine, depth: depth.value } : { engine: dispatcher.engine, depth: null, error: depth.error },
    syncs: database.ok ? syncsOf(database.value) : null,
    sites: database.ok ? database.value.sites : null,
  };
  if (body.ok) return body;
  const down = [store.ok ? null : `store (${body.store.kind})`, database.ok ? null : `database (${body.database.kind})`].filter(Boolean).join(' and ');
  return { ...body, error: { kind: 'store_unavailable', message: `${down} unreachable` } };
}

/** The health body as a response: 200 when healthy, else 503 with `Retry-After`. */
export function healthResponse(body: HealthBody): Response {
  return body.ok ? json(body) : json(body, 503, { 'retry-after': String(STORE_RETRY_AFTER_SECONDS) });
}
