import { z } from 'zod';
import { FactoryError } from '../core/errors.js';
import { parseResolveEntry, type NetPolicy } from '../core/limits.js';
import { createLogger } from '../utils/logger.js';
import { MIN_SECRET_LENGTH } from '../utils/secret-box.js';

const log = createLogger('config');

/** The deployment is misconfigured: `variable` names what to fix (its value is never repeated). */
export class ConfigError extends FactoryError {
  override name = 'ConfigError';
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super('config', message);
  }
}

const list = (value: string | undefined): string[] =>
  (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

const flag = z.enum(['0', '1', 'true', 'false']).transform((value) => value === '1' || value === 'true');
const logLevel = z.enum(['silent', 'fatal', 'error', 'warn', 'info', 'debug', 'trace'], { error: 'expected silent, error, warn, info or debug' });
const httpUrl = z.url({ protocol: /^https?$/, error: 'expected an http(s) URL' });

/**
 * Every variable the service reads, validated in one place. An empty value counts as unset (as .env files
 * leave them). Messages say what is expected, never the value (URLs and tokens carry secrets).
 */
export const FactoryEnvSchema = z.object({
  /** Bearer token every route requires when set; required on Vercel. */
  FACTORY_API_TOKEN: z.string().optional(),
  /** The secret Vercel sends to cron routes (`Authorization: Bearer <CRON_SECRET>`); required on Vercel for the cron route. */
  CRON_SECRET: z.string().optional(),
  /** Set to `1` by Vercel. */
  VERCEL: z.string().optional(),
  /** Redis over TCP (`redis://` or `rediss://`). */
  REDIS_URL: z.url({ protocol: /^rediss?$/, error: 'expected a redis:// or rediss:// URL' }).optional(),
  UPSTASH_REDIS_REST_URL: httpUrl.optional(),
  UPSTASH_REDIS_REST_TOKEN: z.string().optional(),
  /** Vercel KV / the Upstash integration's names for the same endpoint and token. */
  KV_REST_API_URL: httpUrl.optional(),
  KV_REST_API_TOKEN: z.string().optional(),
  /** Comma-separated `host[:port]` private targets the server may fetch (tests, self-hosting). */
  FACTORY_ALLOW_HOSTS: z.string().optional(),
  /** Comma-separated `host:port:addr` static DNS overrides. */
  FACTORY_RESOLVE: z.string().optional(),
  /** Allow every private target (self-hosting on a private network only). */
  FACTORY_ALLOW_PRIVATE: flag.optional(),
  /** Seals the request headers (cookies, tokens) a job is given in the job store; needed for jobs with headers on Redis or Upstash. */
  FACTORY_SECRET_KEY: z.string().min(MIN_SECRET_LENGTH, `expected at least ${MIN_SECRET_LENGTH} characters`).optional(),
  /** Lifetime of a job's keys in milliseconds (default 7 days). */
  FACTORY_JOB_TTL_MS: z.coerce.number({ error: 'expected a whole number of milliseconds' }).int().positive().optional(),
  /** Comma-separated exact origins (`https://app.example.com`) allowed to call the API from a browser. */
  FACTORY_CORS_ORIGINS: z.string().optional(),
  /** Estimates run at once by this process; more are answered 429 with Retry-After (default 4). */
  /** Postgres for the URL inventory (`?options=-c search_path=...` picks a schema); unset: embedded PGlite. */
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/, error: 'expected a postgres:// or postgresql:// URL' }).optional(),
  /** PGlite's data directory when DATABASE_URL is unset (default .crawler-factory/db). */
  FACTORY_DB_DIR: z.string().min(1).optional(),
  FACTORY_ESTIMATE_CONCURRENCY: z.coerce.number({ error: 'expected a whole number' }).int().positive().max(1_000).optional(),
  /** Upstash QStash: with a token, a sync's next slice is published as a signed call back into the deployment. */
  QSTASH_TOKEN: z.string().optional(),
  /** QStash's API (default https://qstash.upstash.io; the region's URL, or a stand-in in tests). */
  QSTASH_URL: httpUrl.optional(),
  /** The keys QStash signs its calls with (both, to allow rotation); the slice routes refuse any call they do not verify. */
  QSTASH_CURRENT_SIGNING_KEY: z.string().optional(),
  QSTASH_NEXT_SIGNING_KEY: z.string().optional(),
  /** This deployment's public origin, which QStash calls back (default on Vercel: the production URL, else the deployment's). */
  FACTORY_PUBLIC_URL: httpUrl.optional(),
  /** Set by Vercel: the host names of the project's production domain and of this deployment. */
  VERCEL_PROJECT_PRODUCTION_URL: z.string().optional(),
  VERCEL_URL: z.string().optional(),
  /** Slices of one site host QStash runs at once (its flow-control parallelism; default 2). */
  FACTORY_QSTASH_HOST_PARALLELISM: z.coerce.number({ error: 'expected a whole number' }).int().positive().max(100).optional(),
  /** Times QStash retries a slice that failed (with its exponential backoff) before the failure callback ends the sync (default 3). */
  /** Budget of a queued slice (the slice route), below the default of half the function's time: for a shorter maxDuration. */
  FACTORY_QUEUED_SLICE_BUDGET_MS: z.coerce.number({ error: 'expected a whole number of milliseconds' }).int().positive().optional(),
  FACTORY_QSTASH_RETRIES: z.coerce.number({ error: 'expected a whole number from 0 to 5' }).int().min(0).max(5).optional(),
  /** The Postgres schema of pg-boss's own tables, beside the inventory's (written into its SQL: plain names only). */
  FACTORY_PGBOSS_SCHEMA: z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,49}$/, 'expected a plain lower-case identifier of at most 50 characters')
    .optional(),
  /** Seconds of silence after which pg-boss fails an active slice and retries it (default 60). */
  FACTORY_PGBOSS_EXPIRE_SECONDS: z.coerce.number({ error: 'expected a whole number of seconds from 10 to 3600' }).int().min(10).max(3_600).optional(),
  /** The log level of the service and the CLI (`silent`, `error`, `warn`, `info`, `debug`); LOG_LEVEL is read when it is unset. */
  FACTORY_LOG_LEVEL: logLevel.optional(),
  LOG_LEVEL: logLevel.optional(),
});
type FactoryEnv = z.infer<typeof FactoryEnvSchema>;

/** The variables of FactoryEnvSchema, in order. */
export const FACTORY_ENV_NAMES = Object.keys(FactoryEnvSchema.shape) as Array<keyof FactoryEnv>;

/** Where jobs live: Redis over TCP, Upstash over REST (under either set of names), or this process's memory. */
export type StoreConfig = { type: 'redis'; url: string } | { type: 'upstash'; url: string; token: string } | { type: 'memory' };

/** How a deployment publishes its slices through QStash. */
export interface QStashConfig {
  token: string;
  /** QStash's API base URL. */
  baseUrl: string;
  /** The deployment's origin (no trailing slash) that QStash calls back. */
  publicUrl: string;
  /** Flow-control parallelism per site host. */
  hostParallelism: number;
  retries: number;
}

/** The keys incoming QStash calls are verified with. */
export interface QStashSigningKeys {
  currentSigningKey: string;
  nextSigningKey: string;
}

/** How the pg-boss engine runs: where its tables live and how its jobs retry and expire. */
export interface PgBossSettings {
  /** The Postgres schema of pg-boss's own tables (FACTORY_PGBOSS_SCHEMA), beside the inventory's. */
  schema: string;
  /** An active slice whose worker went silent this long is failed and retried (pg-boss's expiry). */
  expireSeconds: number;
  /** Tries after the first before a slice goes to the dead-letter queue and its sync ends `failed`. */
  retryLimit: number;
  /** First retry delay; each next one doubles, with jitter (pg-boss's backoff). */
  retryDelaySeconds: number;
}

/**
 * A slice is time-boxed at 5 s (SLICE_BUDGET_MS) and commits within seconds more: a minute of silence means its
 * worker is gone. Five retries from 2 s back off to about a minute, enough for a database or Redis restart.
 */
export const DEFAULT_PGBOSS_SETTINGS: PgBossSettings = { schema: 'pgboss', expireSeconds: 60, retryLimit: 5, retryDelaySeconds: 2 };

/** The service's configuration, typed: read once, at the edge (a function's first request, a CLI command's start). */
export interface FactoryConfig {
  apiToken: string | null;
  /** The cron route's secret (null: the cron route is refused on Vercel, and guarded by the API token elsewhere). */
  cronSecret: string | null;
  onVercel: boolean;
  store: StoreConfig;
  /** The secret a job's request headers are sealed with in a shared job store (null: jobs with headers are refused there). */
  secretKey: string | null;
  /** Lifetime of every key of a job, from its creation; null: the store's default (7 days). */
  jobTtlMs: number | null;
  /** The deployment's network policy, applied to every fetch of every slice. */
  net: NetPolicy;
  /** Browser origins allowed by CORS (exact `scheme://host[:port]`); empty: no CORS headers at all. */
  corsOrigins: string[];
  /** Estimates this process runs at once before answering 429. */
  estimateConcurrency: number;
  /** Where the URL inventory lives: Postgres, or PGlite in a directory (null: the default directory). */
  database: { type: 'postgres'; url: string } | { type: 'pglite'; dir: string | null };
  /** Publishing slices through QStash (null: QSTASH_TOKEN unset, slices are not queued there). */
  qstash: QStashConfig | null;
  /** Verifying QStash's calls to the slice routes (null: no keys, those routes refuse every call). */
  qstashSigning: QStashSigningKeys | null;
  /** Budget of a queued slice (null: the default, half the function's time; a larger value is capped to it). */
  queuedSliceBudgetMs: number | null;
  /** The pg-boss engine's schema and timings (self-hosted workers on Postgres). */
  pgboss: PgBossSettings;
  /** The log level asked for (FACTORY_LOG_LEVEL, else LOG_LEVEL; null: the edge's default). */
  logLevel: string | null;
}

/** Estimates run at once per process when FACTORY_ESTIMATE_CONCURRENCY is not set. */
export const DEFAULT_ESTIMATE_CONCURRENCY = 4;

/** Which variables to set for a durable store, for messages. */
export const STORE_VARIABLES_HINT = 'set REDIS_URL, or UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN (Vercel KV: KV_REST_API_URL and KV_REST_API_TOKEN)';

function storeConfig(env: FactoryEnv): StoreConfig {
  if (env.REDIS_URL) return { type: 'redis', url: env.REDIS_URL };
  for (const [url, token] of [
    ['UPSTASH_REDIS_REST_URL', 'UPSTASH_REDIS_REST_TOKEN'],
    ['KV_REST_API_URL', 'KV_REST_API_TOKEN'],
  ] as const) {
    const [urlValue, tokenValue] = [env[url], env[token]];
    if (urlValue && tokenValue) return { type: 'upstash', url: urlValue, token: tokenValue };
    // Half a store is a mistake to report, not a reason to lose every job in memory.
    if (urlValue) throw new ConfigError(token, `${token} must be set together with ${url}`);
    if (tokenValue) throw new ConfigError(url, `${url} must be set together with ${token}`);
  }
  return { type: 'memory' };
}

/** QStash's API when QSTASH_URL is not set. */
export const DEFAULT_QSTASH_URL = 'https://qstash.upstash.io';
/** Slices of one host QStash runs at once, and its retries of a failed slice, when not configured. */
export const DEFAULT_QSTASH_HOST_PARALLELISM = 2;
export const DEFAULT_QSTASH_RETRIES = 3;

function qstashSigning(env: FactoryEnv): QStashSigningKeys | null {
  const { QSTASH_CURRENT_SIGNING_KEY: current, QSTASH_NEXT_SIGNING_KEY: next } = env;
  if (current && next) return { currentSigningKey: current, nextSigningKey: next };
  if (current) throw new ConfigError('QSTASH_NEXT_SIGNING_KEY', 'QSTASH_NEXT_SIGNING_KEY must be set together with QSTASH_CURRENT_SIGNING_KEY');
  if (next) throw new ConfigError('QSTASH_CURRENT_SIGNING_KEY', 'QSTASH_CURRENT_SIGNING_KEY must be set together with QSTASH_NEXT_SIGNING_KEY');
  return null;
}

// The origin QStash calls back: the configured one, else on Vercel the production domain, else this deployment's host.
function publicUrl(env: FactoryEnv): string | null {
  if (env.FACTORY_PUBLIC_URL) return new URL(env.FACTORY_PUBLIC_URL).origin;
  const host = env.VERCEL_PROJECT_PRODUCTION_URL || env.VERCEL_URL;
  return host ? `https://${host}` : null;
}

function qstashConfig(env: FactoryEnv, signing: QStashSigningKeys | null): QStashConfig | null {
  if (!env.QSTASH_TOKEN) return null;
  // A deployment that publishes slices it then cannot verify would refuse every one of them.
  if (signing === null)
    throw new ConfigError('QSTASH_CURRENT_SIGNING_KEY', 'QSTASH_TOKEN is set without QSTASH_CURRENT_SIGNING_KEY and QSTASH_NEXT_SIGNING_KEY');
  const origin = publicUrl(env);
  if (origin === null) throw new ConfigError('FACTORY_PUBLIC_URL', 'QSTASH_TOKEN is set but not FACTORY_PUBLIC_URL: QStash needs an address to call back');
  return {
    token: env.QSTASH_TOKEN,
    baseUrl: (env.QSTASH_URL ?? DEFAULT_QSTASH_URL).replace(/\/+$/, ''),
    publicUrl: origin,
    hostParallelism: env.FACTORY_QSTASH_HOST_PARALLELISM ?? DEFAULT_QSTASH_HOST_PARALLELISM,
    retries: env.FACTORY_QSTASH_RETRIES ?? DEFAULT_QSTASH_RETRIES,
  };
}

function resolveEntries(value: string | undefined): NetPolicy['resolve'] {
  return list(value).map((entry, index) => {
    const parsed = parseResolveEntry(entry);
    if (parsed === null) throw new ConfigError('FACTORY_RESOLVE', `FACTORY_RESOLVE: entry ${index + 1} is not HOST:PORT:ADDR`);
    return parsed;
  });
}

function corsOrigins(value: string | undefined): string[] {
  return list(value).map((entry, index) => {
    let origin: string | null;
    try {
      origin = new URL(entry).origin;
    } catch {
      origin = null;
    }
    if (origin === null || origin === 'null' || origin !== entry.replace(/\/$/, '')) {
      throw new ConfigError('FACTORY_CORS_ORIGINS', `FACTORY_CORS_ORIGINS: entry ${index + 1} is not an exact origin like https://app.example.com`);
    }
    return origin;
  });
}

/** The set variables among `names` (an empty value counts as unset), validated by `schema`: a bad one is a `config` error naming it. */
function parseEnv<T>(schema: z.ZodType<T>, names: readonly string[], source: Record<string, string | undefined>): T {
  const present = Object.fromEntries(names.filter((name) => source[name] !== undefined && source[name] !== '').map((name) => [name, source[name]]));
  const parsed = schema.safeParse(present);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const variable = String(issue?.path[0] ?? 'environment');
  throw new ConfigError(variable, `${variable}: ${issue?.message ?? 'invalid'}`);
}

const LogLevelSchema = FactoryEnvSchema.pick({ FACTORY_LOG_LEVEL: true, LOG_LEVEL: true });

/**
 * The log level `source` asks for (FACTORY_LOG_LEVEL, else LOG_LEVEL; null when neither is set), alone: the CLI sets
 * its level before a command reads the rest, so a store variable a `walk` never uses cannot stop it.
 */
export function logLevelFrom(source: Record<string, string | undefined>): string | null {
  const env = parseEnv(LogLevelSchema, ['FACTORY_LOG_LEVEL', 'LOG_LEVEL'], source);
  return env.FACTORY_LOG_LEVEL ?? env.LOG_LEVEL ?? null;
}

/** Parses the environment into the typed configuration; a malformed value is a `config` error naming the variable. */
export function readFactoryConfig(source: Record<string, string | undefined>): FactoryConfig {
  const env = parseEnv(FactoryEnvSchema, FACTORY_ENV_NAMES, source);
  const signing = qstashSigning(env);
  return {
    apiToken: env.FACTORY_API_TOKEN ?? null,
    cronSecret: env.CRON_SECRET ?? null,
    onVercel: env.VERCEL === '1',
    store: storeConfig(env),
    secretKey: env.FACTORY_SECRET_KEY ?? null,
    jobTtlMs: env.FACTORY_JOB_TTL_MS ?? null,
    net: {
      allowPrivate: env.FACTORY_ALLOW_PRIVATE ?? false,
      allowHosts: list(env.FACTORY_ALLOW_HOSTS).map((host) => host.toLowerCase()),
      resolve: resolveEntries(env.FACTORY_RESOLVE),
    },
    corsOrigins: corsOrigins(env.FACTORY_CORS_ORIGINS),
    estimateConcurrency: env.FACTORY_ESTIMATE_CONCURRENCY ?? DEFAULT_ESTIMATE_CONCURRENCY,
    database: env.DATABASE_URL ? { type: 'postgres', url: env.DATABASE_URL } : { type: 'pglite', dir: env.FACTORY_DB_DIR ?? null },
    qstash: qstashConfig(env, signing),
    qstashSigning: signing,
    queuedSliceBudgetMs: env.FACTORY_QUEUED_SLICE_BUDGET_MS ?? null,
    pgboss: {
      ...DEFAULT_PGBOSS_SETTINGS,
      ...(env.FACTORY_PGBOSS_SCHEMA === undefined ? {} : { schema: env.FACTORY_PGBOSS_SCHEMA }),
      ...(env.FACTORY_PGBOSS_EXPIRE_SECONDS === undefined ? {} : { expireSeconds: env.FACTORY_PGBOSS_EXPIRE_SECONDS }),
    },
    logLevel: env.FACTORY_LOG_LEVEL ?? env.LOG_LEVEL ?? null,
  };
}

/**
 * The configuration of `source` (an environment: the process's, read by its edge, or a test's own), a malformed value
 * a `config` error naming the variable. Parsed afresh on each call: an edge calls it once and passes the result down.
 */
export function factoryConfig(source: Record<string, string | undefined>): FactoryConfig {
  try {
    return readFactoryConfig(source);
  } catch (error) {
    if (error instanceof ConfigError) log.error({ event: 'config_invalid', variable: error.variable }, error.message);
    throw error;
  }
}

/**
 * The warning to show when jobs would live in this process's memory (lost on restart), or null when a durable
 * store is configured. The CLI prints it itself so it shows without `-v`.
 */
export function inMemoryStoreWarning(config: FactoryConfig): string | null {
  if (config.store.type !== 'memory') return null;
  return `jobs are kept in memory and lost on restart: ${STORE_VARIABLES_HINT}`;
}
