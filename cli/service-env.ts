import { dbTarget, describeDb, type DbTarget } from './db-target.js';

/** The flags `serve` and `worker` hand to the service through its environment. */
export interface ServiceEnvFlags {
  allowPrivate?: boolean;
  allowHost?: string[];
  resolve?: string[];
  db?: string;
}

/** The service reads its network policy from the environment: the CLI's network flags are added to it. */
export function exportNetworkFlags(flags: ServiceEnvFlags, env: NodeJS.ProcessEnv): void {
  const join = (current: string | undefined, extra: string[]) => [current, ...extra].filter(Boolean).join(',');
  if (flags.allowPrivate) env.FACTORY_ALLOW_PRIVATE = '1';
  if (flags.allowHost?.length) env.FACTORY_ALLOW_HOSTS = join(env.FACTORY_ALLOW_HOSTS, flags.allowHost);
  if (flags.resolve?.length) env.FACTORY_RESOLVE = join(env.FACTORY_RESOLVE, flags.resolve);
}

/**
 * The service reads the inventory's place from the environment: `--db postgres://...` is DATABASE_URL, `--db DIR`
 * is FACTORY_DB_DIR (still the default when --db is absent). Returns where the inventory is and how to say it.
 */
export function exportDbFlag(flags: ServiceEnvFlags, env: NodeJS.ProcessEnv): { target: DbTarget; described: string } {
  const target = dbTarget(flags.db, env);
  if (target.kind === 'postgres') env.DATABASE_URL = target.url;
  else env.FACTORY_DB_DIR = target.dir;
  return { target, described: describeDb(target) };
}
