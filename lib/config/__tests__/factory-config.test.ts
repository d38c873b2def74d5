import { describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_PGBOSS_SETTINGS, inMemoryStoreWarning, logLevelFrom, readFactoryConfig } from '../factory-config.js';
import { processConfig } from '../process-config.js';

/** The ConfigError `env` is refused with. */
function refusal(env: Record<string, string>): ConfigError {
  try {
    readFactoryConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('the factory configuration', () => {
  it('defaults to an open, in-memory, public-targets-only service', () => {
    expect(readFactoryConfig({})).toEqual({
      apiToken: null,
      cronSecret: null,
      onVercel: false,
      store: { type: 'memory' },
      secretKey: null,
      jobTtlMs: null,
      net: { allowPrivate: false, allowHosts: [], resolve: [] },
      corsOrigins: [],
      estimateConcurrency: 4,
      database: { type: 'pglite', dir: null },
      qstash: null,
      qstashSigning: null,
      queuedSliceBudgetMs: null,
      pgboss: DEFAULT_PGBOSS_SETTINGS,
      logLevel: null,
    });
  });

  it('reads every variable into one typed value (empty values count as unset)', () => {
    const config = readFactoryConfig({
      FACTORY_API_TOKEN: 't0k3n',
      CRON_SECRET: 'cr0n',
      VERCEL: '1',
      REDIS_URL: 'rediss://user:pw@redis.example:6380',
      FACTORY_ALLOW_HOSTS: '127.0.0.1:8080, Intranet.local',
      FACTORY_RESOLVE: 'example.com:443:127.0.0.1',
      FACTORY_ALLOW_PRIVATE: 'true',
      FACTORY_JOB_TTL_MS: '60000',
      FACTORY_SECRET_KEY: 'a-deployment-secret-of-32-characters-or-more',
      FACTORY_CORS_ORIGINS: 'https://wizard.example.com, http://localhost:5173',
      FACTORY_ESTIMATE_CONCURRENCY: '9',
      DATABASE_URL: 'postgres://127.0.0.1/test',
      UPSTASH_REDIS_REST_URL: '',
      FACTORY_PGBOSS_SCHEMA: 'boss_2',
      FACTORY_PGBOSS_EXPIRE_SECONDS: '90',
      LOG_LEVEL: 'debug',
    });
    expect(config).toEqual({
      apiToken: 't0k3n',
      cronSecret: 'cr0n',
      onVercel: true,
      store: { type: 'redis', url: 'rediss://user:pw@redis.example:6380' },
      secretKey: 'a-deployment-secret-of-32-characters-or-more',
      jobTtlMs: 60_000,
      net: { allowPrivate: true, allowHosts: ['127.0.0.1:8080', 'intranet.local'], resolve: [{ host: 'example.com', port: 443, address: '127.0.0.1' }] },
      corsOrigins: ['https://wizard.example.com', 'http://localhost:5173'],
      estimateConcurrency: 9,
      database: { type: 'postgres', url: 'postgres://127.0.0.1/test' },
      qstash: null,
      qstashSigning: null,
      queuedSliceBudgetMs: null,
      pgboss: { ...DEFAULT_PGBOSS_SETTINGS, schema: 'boss_2', expireSeconds: 90 },
      logLevel: 'debug',
    });
  });

  it('refuses a FACTORY_SECRET_KEY too short to seal with, naming it, never repeating it', () => {
    const refused = (() => {
      try {
        return readFactoryConfig({ FACTORY_SECRET_KEY: 'short-secret' });
      } catch (error) {
        return error;
      }
    })();
    expect(refused).toMatchObject({ kind: 'config', variable: 'FACTORY_SECRET_KEY', message: 'FACTORY_SECRET_KEY: expected at least 32 characters' });
  });

  it('publishes slices through QStash with a token, both signing keys and an address to call back', () => {
    const keys = { QSTASH_CURRENT_SIGNING_KEY: 'sig-current', QSTASH_NEXT_SIGNING_KEY: 'sig-next' };
    const onVercel = readFactoryConfig({ QSTASH_TOKEN: 'q', ...keys, VERCEL_URL: 'app-abc.vercel.app', VERCEL_PROJECT_PRODUCTION_URL: 'app.example.com' });
    expect(onVercel.qstash).toEqual({ token: 'q', baseUrl: 'https://qstash.upstash.io', publicUrl: 'https://app.example.com', hostParallelism: 2, retries: 3 });
    expect(onVercel.qstashSigning).toEqual({ currentSigningKey: 'sig-current', nextSigningKey: 'sig-next' });
    const configured = readFactoryConfig({
      QSTASH_TOKEN: 'q',
      ...keys,
      QSTASH_URL: 'http://127.0.0.1:8080/',
      FACTORY_PUBLIC_URL: 'http://127.0.0.1:3000/',
      FACTORY_QSTASH_HOST_PARALLELISM: '5',
      FACTORY_QSTASH_RETRIES: '0',
      FACTORY_QUEUED_SLICE_BUDGET_MS: '20000',
    });
    expect(configured.queuedSliceBudgetMs).toBe(20_000);
    expect(configured.qstash).toEqual({ token: 'q', baseUrl: 'http://127.0.0.1:8080', publicUrl: 'http://127.0.0.1:3000', hostParallelism: 5, retries: 0 });
    // Keys alone: the routes verify, nothing is published.
    expect(readFactoryConfig(keys)).toMatchObject({ qstash: null, qstashSigning: { currentSigningKey: 'sig-current' } });
  });

  it.each([
    [{ QSTASH_TOKEN: 'q', FACTORY_PUBLIC_URL: 'https://app.example.com' }, 'QSTASH_CURRENT_SIGNING_KEY'],
    [{ QSTASH_TOKEN: 'q', QSTASH_CURRENT_SIGNING_KEY: 'a', QSTASH_NEXT_SIGNING_KEY: 'b' }, 'FACTORY_PUBLIC_URL'],
    [{ QSTASH_CURRENT_SIGNING_KEY: 'a' }, 'QSTASH_NEXT_SIGNING_KEY'],
    [{ FACTORY_QSTASH_RETRIES: '9' }, 'FACTORY_QSTASH_RETRIES'],
  ])('refuses an incomplete QStash setup (%o) naming %s', (env, variable) => {
    expect(refusal(env).variable).toBe(variable);
  });

  it("takes Vercel KV's names for the Upstash REST endpoint", () => {
    expect(readFactoryConfig({ KV_REST_API_URL: 'https://kv.example', KV_REST_API_TOKEN: 'kv' }).store).toEqual({
      type: 'upstash',
      url: 'https://kv.example',
      token: 'kv',
    });
    expect(readFactoryConfig({ UPSTASH_REDIS_REST_URL: 'https://up.example', UPSTASH_REDIS_REST_TOKEN: 'up' }).store).toEqual({
      type: 'upstash',
      url: 'https://up.example',
      token: 'up',
    });
  });

  it.each([
    ['REDIS_URL', 'http://user:hunter2@redis.example'],
    ['UPSTASH_REDIS_REST_URL', 'not a url hunter2'],
    ['FACTORY_JOB_TTL_MS', 'hunter2'],
    ['FACTORY_JOB_TTL_MS', '-5'],
    ['FACTORY_ALLOW_PRIVATE', 'hunter2'],
    ['FACTORY_RESOLVE', 'hunter2.example'],
    ['FACTORY_CORS_ORIGINS', 'https://hunter2.example/path'],
    ['FACTORY_CORS_ORIGINS', '*'],
  ])('refuses a malformed %s as a config error naming it, never repeating the value', (variable, value) => {
    const error = refusal({ [variable]: value });
    expect(error).toMatchObject({ kind: 'config', variable });
    expect(error.message).toContain(variable);
    expect(error.message).not.toContain('hunter2');
  });

  it('refuses half a store instead of silently keeping jobs in memory', () => {
    expect(refusal({ UPSTASH_REDIS_REST_URL: 'https://up.example' }).variable).toBe('UPSTASH_REDIS_REST_TOKEN');
    expect(refusal({ KV_REST_API_TOKEN: 'kv' }).variable).toBe('KV_REST_API_URL');
  });

  it('reads the log level alone, FACTORY_LOG_LEVEL before LOG_LEVEL, and refuses one pino does not know', () => {
    expect(logLevelFrom({})).toBeNull();
    expect(logLevelFrom({ LOG_LEVEL: 'warn', REDIS_URL: 'not a url' })).toBe('warn');
    expect(logLevelFrom({ LOG_LEVEL: 'warn', FACTORY_LOG_LEVEL: 'debug' })).toBe('debug');
    expect(() => logLevelFrom({ FACTORY_LOG_LEVEL: 'verbose' })).toThrow(expect.objectContaining({ kind: 'config', variable: 'FACTORY_LOG_LEVEL' }));
  });

  it('reads the process environment once: the same configuration on every later call', () => {
    expect(processConfig()).toBe(processConfig());
  });

  it('has a warning for the CLI to print when jobs would live in memory, and none with a store', () => {
    expect(inMemoryStoreWarning(readFactoryConfig({}))).toMatch(/lost on restart.*REDIS_URL.*KV_REST_API_URL/);
    expect(inMemoryStoreWarning(readFactoryConfig({ REDIS_URL: 'redis://127.0.0.1:6379' }))).toBeNull();
  });
});
