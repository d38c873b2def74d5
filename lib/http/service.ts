import { ConfigError, factoryConfig, STORE_VARIABLES_HINT, type FactoryConfig } from '../config/factory-config.js';
import type { NetPolicy } from '../core/limits.js';
import type { JobStore } from '../store/job-store.js';
import { openConfiguredStore } from '../store/open-job-store.js';
import { WarmHandle } from '../utils/warm-handle.js';

/** What every handler needs: the typed configuration, the network policy and the job store. */
export interface ServiceContext {
  config: FactoryConfig;
  net: NetPolicy;
  store(): Promise<JobStore>;
}

// One store per warm function instance: connecting on every request would cost a TCP+TLS handshake each time.
const warmStore = new WarmHandle<JobStore>();

// A Vercel function's memory dies with the instance: jobs there would vanish between two calls.
function assertDurable(config: FactoryConfig): void {
  if (config.onVercel && config.store.type === 'memory') {
    throw new ConfigError('REDIS_URL', `no job store is configured and this is Vercel, where memory does not last: ${STORE_VARIABLES_HINT}`);
  }
}

/** The context of this request, from the process's configuration (parsed once, never at import time). */
export function serviceContext(env: Record<string, string | undefined> = process.env): ServiceContext {
  const config = factoryConfig(env);
  return {
    config,
    net: config.net,
    store: () => {
      assertDurable(config);
      return warmStore.get(() => openConfiguredStore(config));
    },
  };
}

/** Drops the cached store (tests that switch stores between cases; `serve` on shutdown). */
export async function resetServiceStore(): Promise<void> {
  await warmStore.reset();
}
