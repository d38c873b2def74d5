import { fileURLToPath } from 'node:url';
import { intFlag, parseCommandArgs } from '../args.js';
import { startLocalApiServer } from '../../lib/http/local-server.js';
import { resetServiceStore } from '../../lib/http/service.js';

const SERVE_FLAGS = { port: { type: 'string' }, host: { type: 'string' } } as const;
const API_DIR = fileURLToPath(new URL('../../api/', import.meta.url));

/** `crawler-factory serve [--port N] [--host H]`: the api/ handlers on a local HTTP server, until interrupted. */
export async function serveCommand(args: string[]): Promise<number> {
  const { values } = parseCommandArgs(args, SERVE_FLAGS);
  const port = intFlag('port', values.port, 0) ?? 3000;
  exportNetworkFlags(values);
  const server = await startLocalApiServer(API_DIR, { host: values.host ?? '127.0.0.1', port });
  process.stderr.write(`serving ${server.routes.join(', ')} on ${server.origin}\n`);
  await new Promise<void>((stop) => {
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await server.close();
  // The handlers' cached store (a Redis connection) would otherwise hold the process open after the signal.
  await resetServiceStore();
  return 0;
}

/** The handlers read their network policy from the environment: the CLI's network flags are added to it. */
function exportNetworkFlags(values: { 'allow-private': boolean; 'allow-host': string[]; resolve: string[] }): void {
  const join = (current: string | undefined, extra: string[]) => [current, ...extra].filter(Boolean).join(',');
  if (values['allow-private']) process.env.FACTORY_ALLOW_PRIVATE = '1';
  if (values['allow-host'].length > 0) process.env.FACTORY_ALLOW_HOSTS = join(process.env.FACTORY_ALLOW_HOSTS, values['allow-host']);
  if (values.resolve.length > 0) process.env.FACTORY_RESOLVE = join(process.env.FACTORY_RESOLVE, values.resolve);
}
