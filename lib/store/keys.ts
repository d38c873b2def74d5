/** Prefix of every key a job owns; the id is wrapped in `{}` so a Redis Cluster keeps one job in one slot. */
export function jobKeyPrefix(jobId: string): string {
  return `cf:job:{${jobId}}:`;
}

/**
 * The fixed keys of a job, in the order every Lua script receives them as KEYS[1..16]. `progress` holds per-work
 * counters (`<id>:claims` since the offset last moved, `<id>:added` children queued); `cycles` the kept cycles;
 * `secrets` the job's request headers, sealed, while it runs; `reports` each finished sitemap's report, by work id.
 */
export const JOB_KEY_NAMES = [
  'status',
  'meta',
  'pending',
  'active',
  'items',
  'offsets',
  'commits',
  'visited',
  'errors',
  'validators',
  'unchanged',
  'previous',
  'progress',
  'cycles',
  'secrets',
  'reports',
] as const;

/** One of the fixed keys of a job. */
export type JobKeyName = (typeof JOB_KEY_NAMES)[number];

/** All fixed keys of a job, in script order. */
export function jobKeys(jobId: string): string[] {
  const prefix = jobKeyPrefix(jobId);
  return JOB_KEY_NAMES.map((name) => prefix + name);
}

/** Key of shard `n` of a job. */
export function shardKey(jobId: string, n: number): string {
  return `${jobKeyPrefix(jobId)}shard:${n}`;
}
