// Public surface of the job stores: the interface, the three adapters and how to pick one.
export * from './job-store.js';
export { assertJobId, idempotentJobId, isJobId, JobIdSchema, newJobId, newLeaseToken } from './job-id.js';
export { jobKeyPrefix } from './keys.js';
export {
  activeSitemapOf,
  JobMetaSchema,
  WorkItemSchema,
  type JobMeta,
  type JobMetaInput,
  type StatusParts,
  type WorkItem,
  type WorkProgress,
} from './records.js';
export { MemoryJobStore, type MemoryJobStoreOptions } from './memory-job-store.js';
export { RedisJobStore, type RedisJobStoreOptions } from './redis-job-store.js';
export { RedisReplyError, CountingCommands, type CommandStats, type RedisCommands } from './redis-commands.js';
export { connectNodeRedis, type NodeRedisOptions } from './node-redis-commands.js';
export { upstashCommands, UpstashTransportError, type UpstashOptions } from './upstash-commands.js';
export { connectRedisJobStore, createUpstashJobStore, openConfiguredStore, openJobStore, type StoreEnv, type StoreOptions } from './open-job-store.js';
export { StoreError, STORE_RETRY_AFTER_SECONDS, jobNotFound, type StoreFailure } from './store-errors.js';
export type { RetryPolicy } from '../utils/backoff.js';
export { SecretBox, MIN_SECRET_LENGTH } from '../utils/secret-box.js';
// The configuration a store is opened from (openJobStore reads it), for callers that open one of their own.
export { factoryConfig } from '../config/factory-config.js';
