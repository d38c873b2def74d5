import { createLogger } from '../utils/logger.js';
import type { JobStore } from './job-store.js';
import { MemoryJobStore } from './memory-job-store.js';
import { connectNodeRedis } from './node-redis-commands.js';
import { RedisJobStore } from './redis-job-store.js';
import type { RetryPolicy } from './script-runner.js';
import { StoreError } from './store-errors.js';
import { upstashCommands } from './upstash-commands.js';

const log = createLogger('store:open');

/** Options shared by the store constructors. */
export interface StoreOptions {
  /** Lifetime of every key of a job, from its creation (default 7 days). */
  ttlMs?: number;
  retry?: RetryPolicy;
}

/** A JobStore on Redis over TCP (`redis://` or `rediss://` URL). */
export async function connectRedisJobStore(url: string, options: StoreOptions = {}): Promise<RedisJobStore> {
  const commands = await connectNodeRedis({ url }).catch((cause: unknown) => {
    throw new StoreError('unavailable', 'cannot connect to redis', { cause });
  });
  return new RedisJobStore(commands, { kind: 'redis', ...options });
}

/** A JobStore on Upstash over REST. */
export function createUpstashJobStore(rest: { url: string; token: string }, options: StoreOptions = {}): RedisJobStore {
  return new RedisJobStore(upstashCommands(rest), { kind: 'upstash', ...options });
}

/** Environment that chooses the store: REDIS_URL, UPSTASH_REDIS_REST_URL/_TOKEN, FACTORY_JOB_TTL_MS (read when called). */
export type StoreEnv = Record<string, string | undefined>;

/** The store the environment asks for: REDIS_URL, else Upstash REST, else in-memory (with a warning). */
export async function openJobStore(env: StoreEnv = process.env): Promise<JobStore> {
  const ttl = Number(env.FACTORY_JOB_TTL_MS);
  const options: StoreOptions = Number.isSafeInteger(ttl) && ttl > 0 ? { ttlMs: ttl } : {};
  if (env.REDIS_URL) return connectRedisJobStore(env.REDIS_URL, options);
  if (env.UPSTASH_REDIS_REST_URL && env.UPSTASH_REDIS_REST_TOKEN) {
    return createUpstashJobStore({ url: env.UPSTASH_REDIS_REST_URL, token: env.UPSTASH_REDIS_REST_TOKEN }, options);
  }
  if (env.UPSTASH_REDIS_REST_URL) log.warn({ event: 'store_config' }, 'UPSTASH_REDIS_REST_URL set without UPSTASH_REDIS_REST_TOKEN: ignored');
  return new MemoryJobStore(options);
}
