import { connectNodeRedis } from './node-redis-commands.js';
import { RedisJobStore } from './redis-job-store.js';
import type { RetryPolicy } from '../utils/backoff.js';
import type { SecretBox } from '../utils/secret-box.js';
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
