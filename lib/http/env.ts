import { z } from 'zod';
import { parseResolveEntry, type NetPolicy } from '../factory/limits.js';

/** The service's environment, validated: read when a request arrives, never at import time. */
export const ServiceEnvSchema = z.object({
  FACTORY_API_TOKEN: z.string().min(1).optional(),
  VERCEL: z.string().optional(),
  REDIS_URL: z.string().url().optional(),
  UPSTASH_REDIS_REST_URL: z.string().url().optional(),
  UPSTASH_REDIS_REST_TOKEN: z.string().min(1).optional(),
  /** Comma-separated `host[:port]` private targets the server may fetch (tests, self-hosting). */
  FACTORY_ALLOW_HOSTS: z.string().optional(),
  /** Comma-separated `host:port:addr` static DNS overrides. */
  FACTORY_RESOLVE: z.string().optional(),
  /** Allow every private target (self-hosting on a private network only). */
  FACTORY_ALLOW_PRIVATE: z.enum(['0', '1', 'true', 'false']).optional(),
  /** Lifetime of a job's keys in milliseconds (lib/store/open-job-store.ts reads it; default 7 days). */
  FACTORY_JOB_TTL_MS: z.coerce.number().int().positive().optional(),
  /** Estimates run at once by this process; more are answered 429 with Retry-After (api/factory/estimate.ts; default 4). */
  FACTORY_ESTIMATE_CONCURRENCY: z.coerce.number().int().positive().max(1_000).optional(),
});
export type ServiceEnv = z.infer<typeof ServiceEnvSchema>;

/** Parses the environment; a malformed value is a configuration error that names the variable. */
export function readServiceEnv(env: NodeJS.ProcessEnv = process.env): ServiceEnv {
  return ServiceEnvSchema.parse(env);
}

const list = (value: string | undefined) =>
  (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

/** The network policy the server applies to every fetch (public targets only unless configured). */
export function netPolicyFromEnv(env: ServiceEnv): NetPolicy {
  return {
    allowPrivate: env.FACTORY_ALLOW_PRIVATE === '1' || env.FACTORY_ALLOW_PRIVATE === 'true',
    allowHosts: list(env.FACTORY_ALLOW_HOSTS).map((host) => host.toLowerCase()),
    resolve: list(env.FACTORY_RESOLVE).map((entry) => {
      const parsed = parseResolveEntry(entry);
      if (parsed === null) throw new z.ZodError([{ code: 'custom', path: ['FACTORY_RESOLVE'], message: `not HOST:PORT:ADDR: ${entry}`, input: entry }]);
      return parsed;
    }),
  };
}
