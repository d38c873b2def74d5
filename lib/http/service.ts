import type { JobStore } from '../store/job-store.js';
import { openJobStore } from '../store/open-job-store.js';
import { readServiceEnv, netPolicyFromEnv, type ServiceEnv } from './env.js';
import type { NetPolicy } from '../factory/limits.js';

/** What every handler needs: the validated environment, the network policy and the job store. */
export interface ServiceContext {
  env: ServiceEnv;
  net: NetPolicy;
  store(): Promise<JobStore>;
}

// One store per warm function instance: connecting on every request would cost a TCP+TLS handshake each time.
let cachedStore: Promise<JobStore> | null = null;

/** The context of this request, read from the environment now (never at import time). */
export function serviceContext(env: NodeJS.ProcessEnv = process.env): ServiceContext {
  const parsed = readServiceEnv(env);
  return {
    env: parsed,
    net: netPolicyFromEnv(parsed),
    store: () => {
      cachedStore ??= openJobStore(env).catch((error: unknown) => {
        cachedStore = null;
        throw error;
      });
      return cachedStore;
    },
  };
}

/** Drops the cached store (tests that switch stores between cases; `serve` on shutdown). */
export async function resetServiceStore(): Promise<void> {
  const store = cachedStore;
  cachedStore = null;
  await (await store?.catch(() => null))?.close();
}
