import { factoryConfig, type FactoryConfig } from '../lib/service/index.js';
import { dbTarget, describeDb, type DbTarget } from './db-target.js';
import { withSealingSecret } from './folder-secret.js';
import { netPolicyFrom } from './options.js';

/** The flags `serve` and `worker` add to the service's configuration. */
export interface ServiceFlags {
  allowPrivate?: boolean;
  allowHost?: string[];
  resolve?: string[];
  db?: string;
}

/** The configuration a CLI command runs the service with, where its inventory is, and how to say it. */
export interface CliServiceConfig {
  config: FactoryConfig;
  target: DbTarget;
  described: string;
}

/**
 * The service's configuration for `serve` and `worker`, read once: the environment's, with the network flags added
 * to its policy, `--db` as the inventory (a postgres:// URL is Postgres, a folder PGlite; DATABASE_URL, then the
 * default folder, when absent), and the folder's sealing secret for a shared store without FACTORY_SECRET_KEY. The
 * environment itself is never written.
 */
export async function serviceConfig(flags: ServiceFlags, env: NodeJS.ProcessEnv): Promise<CliServiceConfig> {
  const base = factoryConfig(env);
  const extra = netPolicyFrom(flags);
  const target = dbTarget(flags.db, env);
  const config: FactoryConfig = {
    ...base,
    net: {
      allowPrivate: base.net.allowPrivate || extra.allowPrivate,
      allowHosts: [...base.net.allowHosts, ...extra.allowHosts],
      resolve: [...base.net.resolve, ...extra.resolve],
    },
    database: target.kind === 'postgres' ? { type: 'postgres', url: target.url } : { type: 'pglite', dir: target.dir },
  };
  return { config: await withSealingSecret(config), target, described: describeDb(target) };
}
