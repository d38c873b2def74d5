import { fileURLToPath } from 'node:url';
import {
  factoryConfig,
  inMemoryStoreWarning,
  enableBackgroundSyncs,
  resumeRunningSyncs,
  resetInventoryDb,
  startScheduleTimer,
  checkListenAddress,
  accessLog,
  startLocalApiServer,
  resetServiceStore,
} from '../../lib/http/index.js';
import { sendLogsTo, setLogLevel } from '../../lib/index.js';
import { UsageError, type Io } from '../io.js';
import { intFlag, netPolicyFrom } from '../options.js';
import { exportDbFlag, exportNetworkFlags } from '../service-env.js';

/** The flags of `serve`. */
export interface ServeFlags {
  port: string;
  host: string;
  insecure?: boolean;
  allowPrivate?: boolean;
  allowHost?: string[];
  resolve?: string[];
  db?: string;
  verbose?: boolean;
}

// The route files and the console sit beside this module's tree: api/ and public/ in the sources, dist/api/ and dist/public/ in the build.
const API_DIR = fileURLToPath(new URL('../../api/', import.meta.url));
const PUBLIC_DIR = fileURLToPath(new URL('../../public/', import.meta.url));

// What the OS says about the address to listen on, as the flag to change: the user's choice, not a bug.
function listenRefusal(error: unknown, host: string, port: number): UsageError | null {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE') return new UsageError(`port ${port} is in use: choose another with --port`);
  if (code === 'EACCES') return new UsageError(`port ${port} needs privileges this user lacks: choose one above 1023 with --port`);
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return new UsageError(
      `--host ${host} does not resolve to an address: pass an IP address of this machine (127.0.0.1, ::1, 0.0.0.0) or a name that resolves`,
    );
  if (code === 'EADDRNOTAVAIL') return new UsageError(`--host ${host} is not an address of this machine: pass one of its addresses (127.0.0.1, ::1, 0.0.0.0)`);
  return null;
}

/**
 * `crawler-factory serve [--port N] [--host H]`: the api/ handlers and the ops console on a local HTTP server.
 * It advances the syncs it starts in the background, and starts scheduled syncs when they fall due (every 30 s).
 * SIGINT/SIGTERM abort running slices (they commit what they read and release their leases), then exit 0.
 */
export async function serveCommand(_args: string[], flags: ServeFlags, io: Io): Promise<number> {
  const port = intFlag('port', flags.port, 0, 65_535) ?? 3000;
  netPolicyFrom(flags); // validates --allow-host / --resolve now, not on the first request
  const { refusal } = checkListenAddress({ host: flags.host, hasToken: Boolean(io.env.FACTORY_API_TOKEN), insecure: flags.insecure === true });
  if (refusal !== null) throw new UsageError(refusal);
  exportNetworkFlags(flags, io.env);
  const inventory = exportDbFlag(flags, io.env).described;
  const warning = inMemoryStoreWarning(factoryConfig(io.env));
  if (warning !== null) io.stderr.write(`warning: ${warning}\n`);
  // A long-lived server advances the syncs it starts by itself (on Vercel the console or an orchestrator does): a pg-boss
  // worker on Postgres, its own loop on PGlite. The inventory opens first: a database that is down says so here.
  const background = await enableBackgroundSyncs(io.env);
  const server = await startLocalApiServer(API_DIR, { host: flags.host, port }, PUBLIC_DIR).catch(async (error: unknown) => {
    await background.stop();
    await resetServiceStore();
    await resetInventoryDb();
    throw listenRefusal(error, flags.host, port) ?? error;
  });
  // Loading the handlers pointed logs at stdout (as the functions log); in the CLI they belong on stderr.
  sendLogsTo('stderr');
  setLogLevel(io.env.FACTORY_LOG_LEVEL || io.env.LOG_LEVEL || (flags.verbose ? 'info' : 'error'));
  accessLog.level = io.env.FACTORY_LOG_LEVEL || io.env.LOG_LEVEL || 'info';
  // Syncs a killed server left running go on by themselves (and stop blocking new syncs of their sites).
  const resumed = await resumeRunningSyncs(io.env).catch(async (error: unknown) => {
    await server.shutdown();
    await background.stop();
    throw error;
  });
  if (resumed.length > 0) io.stderr.write(`resumed ${resumed.length} running sync(s): ${resumed.join(', ')}\n`);
  // Scheduled syncs start by themselves here, as the cron route starts them on Vercel.
  const schedules = startScheduleTimer(io.env);
  io.stderr.write(
    `serving ${server.routes.join(', ')} on ${server.origin}\nops console: ${server.origin}/\ninventory: ${inventory} (this process holds it from its first use until it stops)\n`,
  );
  await new Promise<void>((stop) => {
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await server.shutdown();
  await schedules.stop();
  await background.stop();
  // The handlers' cached store (a Redis connection) and database would otherwise hold the process open.
  await resetServiceStore();
  await resetInventoryDb();
  return 0;
}
