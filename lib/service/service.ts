import { ConfigError, STORE_VARIABLES_HINT, type FactoryConfig } from '../config/factory-config.js';
import { processConfig } from '../config/process-config.js';
import type { NetPolicy } from '../core/limits.js';
import { DispatcherSlot } from '../dispatch/dispatcher-slot.js';
import { qstashDispatcher } from '../dispatch/qstash/qstash-dispatcher.js';
import type { InventoryDb } from '../inventory/db.js';
import { openInventoryDb, DEFAULT_DB_DIR } from '../inventory/open-db.js';
import type { SyncRuntime } from '../inventory/sync-driver.js';
import type { JobStore } from '../store/job-store.js';
import { MemoryJobStore } from '../store/memory-job-store.js';
import { connectRedisJobStore, createUpstashJobStore, type StoreOptions } from '../store/open-job-store.js';
import { SecretBox } from '../utils/secret-box.js';
import { sendLogsTo, setLogLevel } from '../utils/logger.js';
import { WarmHandle } from '../utils/warm-handle.js';

/**
 * What every handler and every background loop needs, made once at the edge from one configuration: the typed
 * configuration, the network policy, the job store and the inventory (opened on first use and kept warm), and the
 * engine that runs the next slices.
 */
export interface ServiceContext {
  config: FactoryConfig;
  net: NetPolicy;
  store(): Promise<JobStore>;
  inventory(): Promise<InventoryDb>;
  /** The store, network policy and inventory a slice runs with. */
  runtime(): Promise<SyncRuntime>;
  slices: DispatcherSlot;
  /** Whether `handle` logs a line per request (a function's log); `serve` writes its own access line instead. */
  logRequests: boolean;
  /** Closes the store and the inventory; the next use opens them again (`serve` on shutdown, a start that failed). */
  release(): Promise<void>;
}

/** Hands out the context of a request: the process's (a function), or the one a `serve` or a test made. */
export type ServiceSource = () => ServiceContext;

// A Vercel function's memory and disk die with the instance: jobs or an embedded inventory there would vanish.
function assertDurableStore(config: FactoryConfig): void {
  if (config.onVercel && config.store.type === 'memory') {
    throw new ConfigError('REDIS_URL', `no job store is configured and this is Vercel, where memory does not last: ${STORE_VARIABLES_HINT}`);
  }
}

function inventoryTarget({ database, onVercel }: FactoryConfig): Parameters<typeof openInventoryDb>[0] {
  if (onVercel && database.type === 'pglite') throw new ConfigError('DATABASE_URL', 'DATABASE_URL is not set: the inventory needs Postgres on Vercel');
  return database.type === 'postgres' ? { databaseUrl: database.url, dataDir: DEFAULT_DB_DIR } : { databaseUrl: null, dataDir: database.dir ?? DEFAULT_DB_DIR };
}

/** Opens the job store the configuration names (Redis, Upstash, else this process's memory), with its job TTL and sealing secret. */
export async function openConfiguredStore(config: Pick<FactoryConfig, 'store' | 'secretKey' | 'jobTtlMs'>): Promise<JobStore> {
  const secrets = config.secretKey === null ? null : new SecretBox(config.secretKey);
  const options: StoreOptions = config.jobTtlMs === null ? { secrets } : { ttlMs: config.jobTtlMs, secrets };
  if (config.store.type === 'redis') return connectRedisJobStore(config.store.url, options);
  if (config.store.type === 'upstash') return createUpstashJobStore(config.store, options);
  return new MemoryJobStore(options);
}

/**
 * The service of `config`: one store and one inventory handle per context (a connection per request would cost a
 * handshake, or PGlite's start, each time), and QStash as the slice engine when the configuration names it.
 */
export function createService(config: FactoryConfig): ServiceContext {
  const store = new WarmHandle<JobStore>();
  const inventory = new WarmHandle<InventoryDb>();
  const context: ServiceContext = {
    config,
    net: config.net,
    store: () => {
      assertDurableStore(config);
      return store.get(() => openConfiguredStore(config));
    },
    inventory: () => inventory.get(() => openInventoryDb(inventoryTarget(config))),
    runtime: async () => ({ db: await context.inventory(), store: await context.store(), net: config.net }),
    slices: new DispatcherSlot(config.qstash === null ? undefined : qstashDispatcher(config.qstash)),
    logRequests: true,
    release: async () => {
      await store.reset();
      await inventory.reset();
    },
  };
  return context;
}

let processService: ServiceContext | null = null;

/**
 * The service of this process's environment, made on the first request (never at import time) and kept for the
 * instance's life: what the api/ functions run with. Its logs go to stdout, as platforms collect them, at the
 * configured level (default info).
 */
export function serviceFromEnvironment(): ServiceContext {
  if (processService === null) {
    const config = processConfig();
    sendLogsTo('stdout');
    setLogLevel(config.logLevel ?? 'info');
    processService = createService(config);
  }
  return processService;
}
