// A deployment under test: the service a configuration makes, handed to route modules bound to it, and changed
// between cases as a redeploy with other variables would change it. Nothing here reads or writes process.env.
import { readFactoryConfig } from '../../config/factory-config.js';
import { createService, type ServiceContext, type ServiceSource } from '../service.js';

/** The service of `env` (plus what `configure` adds) and the source the route modules are bound to. */
export interface TestDeployment {
  /** Hands out the current service, or throws the configuration's error, as the process's service does. */
  source: ServiceSource;
  /** The deployment's variables from now on: its own with `extra` on top (null: its own alone). */
  configure(extra: Record<string, string | undefined> | null): Promise<void>;
  /** Closes the current service's store and inventory. */
  release(): Promise<void>;
}

/** A deployment of `env`: its service made now, a malformed variable kept as the error each request meets. */
export function testDeployment(env: Record<string, string | undefined>): TestDeployment {
  let current: { service: ServiceContext } | { error: unknown };
  const make = (extra: Record<string, string | undefined> | null) => {
    try {
      current = { service: createService(readFactoryConfig({ ...env, ...extra })) };
    } catch (error) {
      current = { error };
    }
  };
  const release = async () => {
    if ('service' in current) await current.service.release();
  };
  make(null);
  return {
    source: () => {
      if ('error' in current) throw current.error;
      return current.service;
    },
    configure: async (extra) => {
      await release();
      make(extra);
    },
    release,
  };
}
