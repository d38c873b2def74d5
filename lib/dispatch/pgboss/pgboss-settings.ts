import { z } from 'zod';
import { ConfigError } from '../../config/factory-config.js';

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

const EnvSchema = z.object({
  // Written into pg-boss's SQL as an identifier: plain names only.
  FACTORY_PGBOSS_SCHEMA: z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,49}$/, 'a plain lower-case identifier of at most 50 characters')
    .optional(),
  FACTORY_PGBOSS_EXPIRE_SECONDS: z.coerce.number().int().min(10).max(3_600).optional(),
});

/** The engine's settings from the environment; a malformed variable is a `config` error naming it. */
export function pgBossSettings(env: Record<string, string | undefined>): PgBossSettings {
  const parsed = EnvSchema.safeParse({
    FACTORY_PGBOSS_SCHEMA: env.FACTORY_PGBOSS_SCHEMA || undefined,
    FACTORY_PGBOSS_EXPIRE_SECONDS: env.FACTORY_PGBOSS_EXPIRE_SECONDS || undefined,
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const variable = String(issue?.path[0] ?? 'FACTORY_PGBOSS_SCHEMA');
    throw new ConfigError(variable, `${variable}: ${issue?.message ?? 'invalid'}`);
  }
  return {
    ...DEFAULT_PGBOSS_SETTINGS,
    ...(parsed.data.FACTORY_PGBOSS_SCHEMA === undefined ? {} : { schema: parsed.data.FACTORY_PGBOSS_SCHEMA }),
    ...(parsed.data.FACTORY_PGBOSS_EXPIRE_SECONDS === undefined ? {} : { expireSeconds: parsed.data.FACTORY_PGBOSS_EXPIRE_SECONDS }),
  };
}
