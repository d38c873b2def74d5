import { Option, type Command } from 'commander';

// Option definitions only (commander): kept apart from their conversion so `--help` loads nothing else.

/** Appends a repeatable option's value. */
export const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/**
 * The network flags of a long-lived process (`serve`, `worker`): they add to the deployment's policy in the environment
 * (FACTORY_ALLOW_PRIVATE, FACTORY_ALLOW_HOSTS, FACTORY_RESOLVE) that every slice it runs reads.
 */
export function addServiceNetworkOptions(command: Command): Command {
  return command
    .option('--allow-private', 'allow loopback and private targets')
    .option('--allow-host <host[:port]>', 'allow exactly this private target (repeatable; adds to FACTORY_ALLOW_HOSTS)', collect)
    .option('--resolve <host:port:addr>', 'static DNS override (repeatable; adds to FACTORY_RESOLVE)', collect);
}

/** The network flags every command that fetches takes. */
export function addNetworkOptions(command: Command): Command {
  return command
    .option('--allow-private', 'allow loopback and private targets (refused by default)')
    .option('--allow-host <host[:port]>', 'allow exactly this private target (repeatable)', collect)
    .option('--resolve <host:port:addr>', 'static DNS override, as curl (repeatable)', collect)
    .option('--timeout <ms>', 'per-request wall clock, body included')
    .option('--concurrency <n>', 'sitemaps in flight (default 8, at most 64)')
    .option('--max-depth <n>', 'deepest index level followed (default unlimited, cycle-safe)')
    .option('--max-children <n>', 'child sitemaps read per index (default 50,000; the rest skipped and reported)')
    .option('--max-urls <n>', 'stop after N URLs')
    .option('--user-agent <ua>', 'User-Agent header (default AlgoliaCentralFactory/1.0)')
    .option('-H, --header <"Name: value">', 'extra request header (repeatable)', collect)
    .option('--cookie <cookie>', 'Cookie header for every request, e.g. "session=abc"')
    .option('--proxy <url>', 'HTTP(S) proxy (default: HTTPS_PROXY / HTTP_PROXY, minus NO_PROXY)')
    .option('--rate <n>', 'requests per second per host (polite crawling)')
    .option('--retries <n>', 'extra attempts on dropped connections, 502/503/504 and 429/503 Retry-After (default 2)')
    .option('-v, --verbose', 'structured logs (pino) on stderr; LOG_LEVEL=debug for more')
    .option('--progress', 'progress on stderr (default: only on a terminal)')
    .option('-q, --quiet', 'no progress, notes, child errors or summary on stderr (fatal errors still)');
}

/** The entry filters, applied while streaming. */
export function addFilterOptions(command: Command): Command {
  return (
    command
      .option('--include <glob|/re/>', 'keep URLs matching (repeatable); a glob starting with / matches the path', collect)
      .option('--exclude <glob|/re/>', 'drop URLs matching (repeatable); wins over --include', collect)
      .option('--path-prefix <prefix>', 'keep URLs under this path (repeatable); a locale folder is looked through', collect)
      .option('--locale <locale>', 'keep URLs of this locale as `groups` reports it, e.g. en-US or en (repeatable)', collect)
      .option('--since <date>', 'keep entries whose lastmod is on or after DATE (YYYY-MM-DD or ISO 8601)')
      .option('--require-lastmod', 'with --since, drop entries without a lastmod')
      // No commander default (all is filterFrom's): a resume must tell a --scope given again from one never given.
      .addOption(
        new Option('--scope <scope>', 'page hosts kept relative to the root: all (default), domain (registrable) or host').choices(['all', 'domain', 'host']),
      )
  );
}
