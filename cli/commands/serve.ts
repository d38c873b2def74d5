import { fileURLToPath } from 'node:url';
import { intFlag, netPolicyFrom, parseCommandArgs, UsageError } from '../args.js';
import { startLocalApiServer } from '../../lib/http/local-server.js';
import { resetServiceStore } from '../../lib/http/service.js';
import { resetInventoryDb } from '../../lib/http/inventory-context.js';

const SERVE_FLAGS = { port: { type: 'string' }, host: { type: 'string' } } as const;
const API_DIR = fileURLToPath(new URL('../../api/', import.meta.url));
const PUBLIC_DIR = fileURLToPath(new URL('../../public/', import.meta.url));

/** `crawler-factory serve [--port N] [--host H]`: the api/ handlers on a local HTTP server, until interrupted. */
export async function serveCommand(args: string[]): Promise<number> {
  const { values } = parseCommandArgs(args, SERVE_FLAGS);
  const port = intFlag('port', values.port, 0, 65_535) ?? 3000;
  refuseJobLimits(values);
  netPolicyFrom(values); // validates --allow-host / --resolve now, not on the first request
  exportNetworkFlags(values);
  const server = await startLocalApiServer(API_DIR, { host: values.host ?? '127.0.0.1', port }, PUBLIC_DIR);
  process.stderr.write(`serving ${server.routes.join(', ')} on ${server.origin}\nops console: ${server.origin}/\n`);
  await new Promise<void>((stop) => {
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await server.close();
  // The handlers' cached store (a Redis connection) would otherwise hold the process open after the signal.
  await resetServiceStore();
  await resetInventoryDb();
  return 0;
}

/** Limits belong to each job (the `options` of a start request): a server-wide flag would be silently ignored. */
function refuseJobLimits(values: Record<string, unknown>): void {
  const given = ['timeout', 'concurrency', 'max-depth', 'max-urls', 'user-agent', 'ndjson'].filter((flag) => values[flag] !== undefined && values[flag] !== false);
  if (given.length > 0) {
    throw new UsageError(`serve takes no ${given.map((flag) => `--${flag}`).join(', ')}: limits are set per job in the start request's "options"`);
  }
}

/** The handlers read their network policy from the environment: the CLI's network flags are added to it. */
function exportNetworkFlags(values: { 'allow-private': boolean; 'allow-host': string[]; resolve: string[] }): void {
  const join = (current: string | undefined, extra: string[]) => [current, ...extra].filter(Boolean).join(',');
  if (values['allow-private']) process.env.FACTORY_ALLOW_PRIVATE = '1';
  if (values['allow-host'].length > 0) process.env.FACTORY_ALLOW_HOSTS = join(process.env.FACTORY_ALLOW_HOSTS, values['allow-host']);
  if (values.resolve.length > 0) process.env.FACTORY_RESOLVE = join(process.env.FACTORY_RESOLVE, values.resolve);
}
