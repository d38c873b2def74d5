import { ZodError } from 'zod';
import { UsageError } from './args.js';
import { demoCommand } from './commands/demo.js';
import { discoverCommand } from './commands/discover.js';
import { walkCommand } from './commands/walk.js';
import { isFactoryError } from '../lib/factory/errors.js';
import { sendLogsTo, setLogLevel } from '../lib/utils/logger.js';

const USAGE = `crawler-factory: find every URL a site publishes in its sitemaps

Usage:
  crawler-factory discover <rootUrl>     sitemap URLs, one a line
  crawler-factory walk <url>             page URLs, one a line; a site root (path "/") is discovered first, else <url> is a sitemap
  crawler-factory demo                   serve the bundled demo site on 127.0.0.1 and discover it

Output:
  --ndjson                 one JSON object a line: url | sitemap | error | summary (last)
  --progress               progress on stderr (default: only on a terminal)
  -v, --verbose            structured logs (pino) on stderr; LOG_LEVEL=debug for more

Network (every command):
  --allow-private          allow loopback and private targets (refused by default)
  --allow-host HOST[:PORT] allow exactly this private target (repeatable)
  --resolve HOST:PORT:ADDR static DNS override, as curl (repeatable)
  --timeout MS             per-request wall clock, body included
  --concurrency N          sitemaps in flight (default 8)
  --max-depth N            deepest index level followed (default unlimited, cycle-safe)
  --max-urls N             stop after N URLs
  --user-agent S           (default AlgoliaCentralFactory/1.0)

Exit: 0 done (child errors reported), 1 fatal error, 2 usage error.
`;

type Command = (args: string[]) => Promise<number>;
const COMMANDS: Record<string, Command> = { discover: discoverCommand, walk: walkCommand, demo: demoCommand };

/** Reports a fatal error: an NDJSON `error` line on stdout when asked for NDJSON, and a line on stderr. */
function reportFatal(error: unknown, ndjson: boolean): void {
  const body = isFactoryError(error)
    ? { kind: error.kind, url: error.url, message: error.message }
    : { kind: 'fetch_failed', url: null, message: error instanceof Error ? error.message : String(error) };
  if (ndjson) process.stdout.write(`${JSON.stringify({ type: 'error', fatal: true, ...body })}\n`);
  process.stderr.write(`crawler-factory: ${body.kind}: ${body.message}${body.url ? ` (${body.url})` : ''}\n`);
}

/** Runs one CLI invocation and returns its exit code. */
export async function main(argv: string[]): Promise<number> {
  sendLogsTo('stderr');
  setLogLevel(process.env.LOG_LEVEL ?? (argv.includes('-v') || argv.includes('--verbose') ? 'info' : 'warn'));
  const [name, ...args] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(USAGE);
    return name ? 0 : 2;
  }
  const command = COMMANDS[name];
  if (!command) {
    process.stderr.write(`crawler-factory: unknown command "${name}"\n\n${USAGE}`);
    return 2;
  }
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(USAGE);
    return 0;
  }
  try {
    return await command(args);
  } catch (error) {
    if (error instanceof UsageError || error instanceof ZodError) {
      process.stderr.write(`crawler-factory ${name}: ${error instanceof ZodError ? 'invalid option: ' : ''}${error.message}\n`);
      return 2;
    }
    if (isFactoryError(error) && error.kind === 'invalid_url') {
      reportFatal(error, args.includes('--ndjson'));
      return 2;
    }
    reportFatal(error, args.includes('--ndjson'));
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
