import { fileURLToPath } from 'node:url';
import {
  accessLog,
  checkListenAddress,
  createService,
  inMemoryStoreWarning,
  startBackgroundSyncs,
  startLocalApiServer,
  startScheduleTimer,
  type BackgroundEvent,
} from '../../lib/service/index.js';
import { UsageError, type Io } from '../io.js';
import { intFlag } from '../options.js';
import { serviceConfig } from '../service-config.js';

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

// One line on stderr per change of the background work: syncs adopted, a dependency waited for, back.
function backgroundLine(event: BackgroundEvent): string {
  if (event.type === 'resumed') return `resumed ${event.syncIds.length} running sync(s): ${event.syncIds.join(', ')}\n`;
  if (event.type === 'waiting')
    return `warning: ${event.message}: serving 503 store_unavailable until it answers (trying again every ${event.retryMs / 1000} s)\n`;
  return 'the database and the job store answer again: background syncs running\n';
}

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
  const { config, target, described: inventory } = await serviceConfig(flags, io.env);
  const { refusal } = checkListenAddress({ host: flags.host, hasToken: config.apiToken !== null, insecure: flags.insecure === true });
  if (refusal !== null) throw new UsageError(refusal);
  // PGlite is one process's folder; Postgres is shared by every serve and worker on it.
  const holding =
    target.kind === 'pglite' ? ' (this process holds it from its first use until it stops)' : ' (shared: other serve and worker processes may use it too)';
  const warning = inMemoryStoreWarning(config);
  if (warning !== null) io.stderr.write(`warning: ${warning}\n`);
  // The CLI's logs are on stderr at its level already (cli/program.ts); the access lines show unless a level is configured.
  accessLog.level = config.logLevel ?? 'info';
  const service = createService(config);
  // A long-lived server advances the syncs it starts by itself (on Vercel the console or an orchestrator does): a pg-boss
  // worker on Postgres, its own loop on PGlite, and it adopts the syncs a killed server left running. A database or
  // store that is down at start is waited for: the server serves 503s meanwhile and recovers by itself.
  const background = await startBackgroundSyncs(service, (event) => io.stderr.write(backgroundLine(event)));
  const server = await startLocalApiServer(API_DIR, { host: flags.host, port }, () => service, PUBLIC_DIR).catch(async (error: unknown) => {
    await background.stop();
    await service.release();
    throw listenRefusal(error, flags.host, port) ?? error;
  });
  // Scheduled syncs start by themselves here, as the cron route starts them on Vercel.
  const schedules = startScheduleTimer(service);
  io.stderr.write(`serving ${server.routes.join(', ')} on ${server.origin}\nops console: ${server.origin}/\ninventory: ${inventory}${holding}\n`);
  await new Promise<void>((stop) => {
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await server.shutdown();
  await schedules.stop();
  await background.stop();
  // The handlers' store (a Redis connection) and database would otherwise hold the process open.
  await service.release();
  return 0;
}
