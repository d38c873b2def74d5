import { isIP } from 'node:net';
import { fileURLToPath } from 'node:url';
import { startLocalApiServer } from '../../lib/http/local-server.js';
import { resetServiceStore } from '../../lib/http/service.js';
import { sendLogsTo, setLogLevel } from '../../lib/utils/logger.js';
import { UsageError, type Io } from '../io.js';
import { intFlag, netPolicyFrom } from '../options.js';
import { MEMORY_STORE_WARNING } from './job-run.js';

/** The flags of `serve`. */
export interface ServeFlags {
  port: string;
  host: string;
  insecure?: boolean;
  allowPrivate?: boolean;
  allowHost?: string[];
  resolve?: string[];
  verbose?: boolean;
}

// The route files sit beside this module's tree: api/ in the sources, dist/api/ in the build.
const API_DIR = fileURLToPath(new URL('../../api/', import.meta.url));

function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '');
  return bare === 'localhost' || bare === '::1' || (isIP(bare) === 4 && bare.startsWith('127.'));
}

/** No store variable set: the handlers fall back to the in-memory store. */
function usesMemoryStore(env: NodeJS.ProcessEnv): boolean {
  return !env.REDIS_URL && !(env.UPSTASH_REDIS_REST_URL && env.UPSTASH_REDIS_REST_TOKEN) && !(env.KV_REST_API_URL && env.KV_REST_API_TOKEN);
}

/** The handlers read their network policy from the environment: the CLI's network flags are added to it. */
function exportNetworkFlags(flags: ServeFlags, env: NodeJS.ProcessEnv): void {
  const join = (current: string | undefined, extra: string[]) => [current, ...extra].filter(Boolean).join(',');
  if (flags.allowPrivate) env.FACTORY_ALLOW_PRIVATE = '1';
  if (flags.allowHost?.length) env.FACTORY_ALLOW_HOSTS = join(env.FACTORY_ALLOW_HOSTS, flags.allowHost);
  if (flags.resolve?.length) env.FACTORY_RESOLVE = join(env.FACTORY_RESOLVE, flags.resolve);
}

/** `crawler-factory serve [--port N] [--host H]`: the api/ handlers on a local HTTP server until SIGINT/SIGTERM (exit 0). */
export async function serveCommand(_args: string[], flags: ServeFlags, io: Io): Promise<number> {
  const port = intFlag('port', flags.port, 0, 65_535) ?? 3000;
  netPolicyFrom(flags); // validates --allow-host / --resolve now, not on the first request
  if (!isLoopback(flags.host) && !io.env.FACTORY_API_TOKEN && !flags.insecure) {
    throw new UsageError(`refusing to serve on ${flags.host} without FACTORY_API_TOKEN: set it (clients send "Authorization: Bearer <token>") or pass --insecure`);
  }
  exportNetworkFlags(flags, io.env);
  if (usesMemoryStore(io.env)) io.stderr.write(`${MEMORY_STORE_WARNING}\n`);
  const server = await startLocalApiServer(API_DIR, { host: flags.host, port });
  // Loading the handlers pointed logs at stdout (as the functions log); in the CLI they belong on stderr.
  sendLogsTo('stderr');
  setLogLevel(io.env.FACTORY_LOG_LEVEL ?? io.env.LOG_LEVEL ?? (flags.verbose ? 'info' : 'error'));
  io.stderr.write(`serving ${server.routes.join(', ')} on ${server.origin}\n`);
  await new Promise<void>((stop) => {
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await server.close();
  // The handlers' cached store (a Redis connection) would otherwise hold the process open after the signal.
  await resetServiceStore();
  return 0;
}
