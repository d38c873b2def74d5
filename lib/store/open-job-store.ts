import { factoryConfig, type FactoryConfig } from '../config/factory-config.js';
import { SecretBox } from '../utils/secret-box.js';
import type { JobStore } from './job-store.js';
import { MemoryJobStore } from './memory-job-store.js';
import { connectNodeRedis } from './node-redis-commands.js';
import { RedisJobStore } from './redis-job-store.js';
import type { RetryPolicy } from '../utils/backoff.js';
import { StoreError } from './store-errors.js';
import { upstashCommands } from './upstash-commands.js';

/** Options shared by the store constructors. */
export interface StoreOptions {
  /** Lifetime of every key of a job, from its creation (default 7 days). */
  ttlMs?: number;
  retry?: RetryPolicy;
  /** Seals jobs' request headers in a shared store (null or absent: jobs with headers are refused there). */
  secrets?: SecretBox | null;
}

/** A JobStore on Redis over TCP (`redis://` or `rediss://` URL). */
export async function connectRedisJobStore(url: string, options: StoreOptions = {}): Promise<RedisJobStore> {
  const commands = await connectNodeRedis({ url }).catch((cause: unknown) => {
    throw new StoreError('unavailable', 'cannot connect to the job store (redis)', { cause });
  });
  return new RedisJobStore(commands, { kind: 'redis', ...options });
}

/** A JobStore on Upstash over REST. */
export function createUpstashJobStore(rest: { url: string; token: string }, options: StoreOptions = {}): RedisJobStore {
  return new RedisJobStore(upstashCommands(rest), { kind: 'upstash', ...options });
}

/** Environment that chooses the store (see lib/config/factory-config.ts). */
export type StoreEnv = Record<string, string | undefined>;

/** Opens the store the configuration names, with its job TTL. */
export async function openConfiguredStore(config: FactoryConfig): Promise<JobStore> {
  const secrets = config.secretKey === null ? null : new SecretBox(config.secretKey);
  const options: StoreOptions = config.jobTtlMs === null ? { secrets } : { ttlMs: config.jobTtlMs, secrets };
  if (config.store.type === 'redis') return connectRedisJobStore(config.store.url, options);
  if (config.store.type === 'upstash') return createUpstashJobStore(config.store, options);
  return new MemoryJobStore(options);
}

/** The store the environment asks for: REDIS_URL, else Upstash REST (either names), else in-memory. */
export async function openJobStore(env: StoreEnv = process.env): Promise<JobStore> {
  return openConfiguredStore(factoryConfig(env));
}
