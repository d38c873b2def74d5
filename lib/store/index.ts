// Public surface of the job stores: the interface and the three adapters (the service picks one from its configuration).
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
export { connectRedisJobStore, createUpstashJobStore, type StoreOptions } from './open-job-store.js';
export { StoreError, STORE_RETRY_AFTER_SECONDS, jobNotFound, type StoreFailure } from './store-errors.js';
export type { RetryPolicy } from '../utils/backoff.js';
export { SecretBox, MIN_SECRET_LENGTH } from '../utils/secret-box.js';
