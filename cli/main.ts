import { ZodError } from 'zod';
import { UsageError } from './args.js';
import { isFactoryError } from '../lib/factory/errors.js';
import { closeAgents } from '../lib/factory/fetch/index.js';
import { sendLogsTo, setLogLevel } from '../lib/utils/logger.js';

const USAGE = `crawler-factory: find every URL a site publishes in its sitemaps

Usage:
  crawler-factory discover <rootUrl>     sitemap URLs, one a line
  crawler-factory walk <url>             page URLs, one a line; a site root (path "/") is discovered first, else <url> is a sitemap
  crawler-factory estimate <rootUrl>     scope pre-flight as JSON: sub-sitemaps, URL range and estimate, languages, transport
  crawler-factory groups <url>           path groups as NDJSON, largest first, "other" last; <url> as for walk
  crawler-factory job run <rootUrl>      a resumable job to completion with progress (--store memory|redis://...|upstash,
                                         --resume <jobId>, --budget MS per slice, --urls to print the shards' URLs)
  crawler-factory serve [--port N]       the api/ handlers on a local HTTP server (default 127.0.0.1:3000)
  crawler-factory demo                   serve the bundled demo site on 127.0.0.1 and discover it
  crawler-factory sync <rootUrl>         sync a site into the URL inventory (DATABASE_URL, else PGlite in --db DIR,
                                         default .crawler-factory/db) with progress (--site ID, --resume <syncId>)

Output:
  --ndjson                 one JSON object a line: url | sitemap | error | summary (last)
  --progress               progress on stderr (default: only on a terminal)
  -v, --verbose            structured logs (pino) on stderr; LOG_LEVEL=debug for more
  --budget MS              estimate: probe time budget (default 2000)

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

// Loaded on demand: `walk` should not pay for the job store, Redis and HTTP modules at start-up.
const COMMANDS: Record<string, () => Promise<Command>> = {
  discover: async () => (await import('./commands/discover.js')).discoverCommand,
  walk: async () => (await import('./commands/walk.js')).walkCommand,
  estimate: async () => (await import('./commands/estimate.js')).estimateCommand,
  groups: async () => (await import('./commands/groups.js')).groupsCommand,
  job: async () => jobCommand,
  serve: async () => (await import('./commands/serve.js')).serveCommand,
  demo: async () => (await import('./commands/demo.js')).demoCommand,
  sync: async () => (await import('./commands/sync.js')).syncCommand,
};

/** `job run ...`: the only job sub-command so far. */
async function jobCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== 'run') throw new UsageError(`unknown job sub-command "${sub ?? ''}": expected "job run <rootUrl>"`);
  return (await import('./commands/job-run.js')).jobRunCommand(rest);
}

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
  // Child failures are already printed as data (stderr lines or NDJSON events): logs are for -v.
  setLogLevel(process.env.LOG_LEVEL ?? (argv.includes('-v') || argv.includes('--verbose') ? 'info' : 'error'));
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
    return await (await command())(args);
  } catch (error) {
    if (error instanceof UsageError || error instanceof ZodError) {
      process.stderr.write(`crawler-factory ${name}: ${error instanceof ZodError ? 'invalid option: ' : ''}${error.message}\n`);
      return 2;
    }
    // A refused argument (a URL that is not http(s), a malformed job id, an out-of-range budget) is a usage error.
    if (isFactoryError(error) && (error.kind === 'invalid_url' || error.kind === 'bad_request')) {
      reportFatal(error, args.includes('--ndjson'));
      return 2;
    }
    reportFatal(error, args.includes('--ndjson'));
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
// Pooled keep-alive sockets would hold the process open until the servers close them.
await closeAgents();
