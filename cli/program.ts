import { Command, CommanderError, Option } from 'commander';
import type { Io } from './io.js';
import { addFilterOptions, addNetworkOptions, addServiceNetworkOptions, collect } from './flags.js';
import { packageVersion } from './version.js';

/** A command's action (flags typed by each command, from commander's opts()); loaded on demand, returns the exit code. */
export type Action = (positionals: string[], flags: never, io: Io) => Promise<number>;

function examples(lines: string[]): string {
  return `\nExamples:\n${lines.map((line) => `  $ ${line}`).join('\n')}\n`;
}

function outputOptions(command: Command, formats: string[]): Command {
  return command
    .addOption(new Option('--format <format>', 'output format').choices(formats).default('lines'))
    .option('--ndjson', 'alias of --format ndjson: url | sitemap | error | summary (last) objects')
    .option('-o, --output <file>', 'write data to FILE atomically (temp file renamed on success; nothing on failure)')
    .option('--summary', 'one summary line on stderr at the end (default: on a terminal)');
}

/**
 * Registers the commands. Each command module is imported only when it runs. A new command (the inventory's
 * `sync`, for instance) adds one `register(...)` block here and its module under cli/commands/.
 */
function registerCommands(program: Command, run: (action: () => Promise<Action>) => (...args: unknown[]) => Promise<void>): void {
  const walk = program
    .command('walk')
    .summary('page URLs of sites, sitemaps or local sitemap files, one a line')
    .description(
      'Page URLs, one a line. A site root (path "/") is discovered first (robots.txt, then well-known paths); any other URL is read as a sitemap; a local path is read as a sitemap file whose children are fetched.',
    )
    .argument('<input...>', 'URL, host name (https:// added), local sitemap file, or - for URLs on stdin');
  addFilterOptions(addNetworkOptions(outputOptions(walk, ['lines', 'ndjson', 'csv', 'json'])))
    .option(
      '--validators <file>',
      "incremental re-sync: read the previous run's sitemap validators from FILE (if present), skip or ask conditionally for unchanged sitemaps (their URLs are not printed), and rewrite FILE after a complete walk",
    )
    .option('--full', 'with --validators: read every sitemap whole (the file is still rewritten)');
  walk.addHelpText(
    'after',
    examples([
      'crawler-factory walk https://www.example.com/',
      'crawler-factory walk example.com --include "/blog/**" --since 2024-01-01 --format csv -o blog.csv',
      'crawler-factory walk ./sitemap.xml.gz --locale de --scope host',
      'cat sites.txt | crawler-factory walk - --rate 2 --header "Authorization: Bearer T" --ndjson',
    ]),
  );
  walk.action(run(async () => (await import('./commands/walk.js')).walkCommand));

  const discover = program.command('discover').summary('sitemap URLs of a site, one a line').argument('<rootUrl>', 'site root URL (or host name)');
  addNetworkOptions(discover)
    .addOption(
      new Option('--format <format>', 'output format: sitemap URLs, or sitemap objects saying where each came from')
        .choices(['lines', 'ndjson'])
        .default('lines'),
    )
    .option('--ndjson', 'alias of --format ndjson: sitemap and error objects, a summary last');
  discover.addHelpText('after', examples(['crawler-factory discover https://www.example.com/', 'crawler-factory discover example.com --format ndjson']));
  discover.action(run(async () => (await import('./commands/discover.js')).discoverCommand));

  const check = program
    .command('check')
    .summary("lint a site's sitemaps: each one's status and findings; exit 1 on any error")
    .description(
      "The findings of every sitemap of a site (a root is discovered first: robots.txt, then well-known paths) or of one sitemap and its children: the protocol's rules and the search engines' (namespace, size, encoding, locs on other hosts, lastmod, duplicates, robots.txt, hreflang...). Exit 1 when any error is found (a sitemap that fails is one), 0 otherwise.",
    )
    .argument('<input>', 'site root, sitemap URL or local sitemap file')
    .addOption(new Option('--format <format>', 'output format').choices(['human', 'json', 'ndjson']).default('human'));
  addNetworkOptions(check).addHelpText(
    'after',
    examples(['crawler-factory check https://www.example.com/', 'crawler-factory check https://www.example.com/sitemap.xml --format ndjson']),
  );
  check.action(run(async () => (await import('./commands/check.js')).checkCommand));

  const estimate = program
    .command('estimate')
    .summary('scope pre-flight as JSON: sub-sitemaps, URL range, languages, transport')
    .argument('<rootUrl>', 'site root URL (or host name)')
    .option('--budget <ms>', 'probe time budget, at least 250 (default 2000)')
    .option('--ndjson', 'one JSON line instead of pretty JSON');
  addNetworkOptions(estimate).addHelpText('after', examples(['crawler-factory estimate https://www.example.com/ --budget 1500']));
  estimate.action(run(async () => (await import('./commands/estimate.js')).estimateCommand));

  const groups = program
    .command('groups')
    .summary('path groups as NDJSON, largest first, "other" last')
    .argument('<input>', 'site root, sitemap URL or local sitemap file');
  addFilterOptions(addNetworkOptions(groups)).addHelpText('after', examples(['crawler-factory groups https://www.example.com/ --locale en']));
  groups.action(run(async () => (await import('./commands/groups.js')).groupsCommand));

  const job = program.command('job').summary('resumable jobs (job run)');
  const jobRun = job
    .command('run')
    .summary('a resumable job to completion, with progress')
    .argument('[rootUrl]', 'site root or sitemap URL (or --resume)')
    .option('--store <store>', 'memory, redis://host:port or upstash (default: from REDIS_URL / UPSTASH_*, else memory)')
    .option('--resume <jobId>', 'continue an existing job, with the settings it started with (flags given again override them)')
    .option('--previous <jobId>', "incremental re-sync: start from that job's validators (unchanged sitemaps are not read again)")
    .option('--retry-stalled', 'with --resume: claim again the sitemaps a stalled job is stuck on (after fixing the site)')
    .option('--budget <ms>', 'time budget per slice, at least 250 (default 10000)')
    .option('--urls', "print the shards' URLs instead of the final status");
  addFilterOptions(addNetworkOptions(jobRun)).addHelpText(
    'after',
    examples([
      'crawler-factory job run https://www.example.com/ --store redis://127.0.0.1:6379 --path-prefix /docs/',
      'crawler-factory job run --resume AbC123... --store redis://127.0.0.1:6379 --urls',
    ]),
  );
  jobRun.action(run(async () => (await import('./commands/job-run.js')).jobRunCommand));

  const serve = addServiceNetworkOptions(
    program
      .command('serve')
      .summary('the api/ handlers on a local HTTP server (default 127.0.0.1:3000)')
      .option('--port <n>', 'port (0: a free one)', '3000')
      .option('--host <host>', 'interface to listen on', '127.0.0.1')
      .option('--insecure', 'listen on a non-loopback host without FACTORY_API_TOKEN'),
  )
    .option('--db <dir|url>', 'inventory: PGlite folder when DATABASE_URL is unset (default FACTORY_DB_DIR, else .crawler-factory/db), or a postgres:// URL')
    .option('-v, --verbose', 'structured logs on stderr');
  serve.addHelpText('after', examples(['crawler-factory serve --port 8080', 'FACTORY_API_TOKEN=s3cret crawler-factory serve --host 0.0.0.0']));
  serve.action(run(async () => (await import('./commands/serve.js')).serveCommand));

  const worker = addServiceNetworkOptions(
    program
      .command('worker')
      .summary("run sync slices from the pg-boss queue in the inventory's Postgres, and start due scheduled syncs")
      .option('--concurrency <n>', 'slices this process runs at once (default 8)')
      .option('--per-host <n>', 'slices of one site host running at once across every worker on the database (default 2)')
      .option('--db <url>', 'inventory: a postgres:// URL (default DATABASE_URL); PGlite is refused'),
  ).option('-v, --verbose', 'structured logs on stderr');
  worker.addHelpText(
    'after',
    examples([
      'DATABASE_URL=postgres://db/inventory REDIS_URL=redis://cache:6379 crawler-factory worker --concurrency 16',
      'crawler-factory worker --db postgres://db/inventory --per-host 1',
    ]),
  );
  worker.action(run(async () => (await import('./commands/worker.js')).workerCommand));

  const sync = program
    .command('sync')
    .summary('sync a site into the URL inventory (DATABASE_URL, else PGlite in --db DIR)')
    .argument('[rootUrl]', 'site root URL (or --resume)')
    .option('--site <id>', 'site id (default: derived from the host)')
    .option(
      '--db <dir|url>',
      'PGlite folder when DATABASE_URL is unset (default FACTORY_DB_DIR, else .crawler-factory/db; one process at a time), or a postgres:// URL',
    )
    .option('--resume <syncId>', 'continue an existing sync, with the settings it started with (flags given again override them)')
    .option('--full', "read every sitemap whole instead of re-syncing from the last done sync's validators")
    .option('--budget <ms>', 'time budget per slice, at least 250 (default 10000)')
    .option('--schedule <interval>', "the site's schedule: sync it again every 30m, 6h, 24h, 7d (at least 15m), or off");
  addNetworkOptions(sync).addHelpText(
    'after',
    examples([
      'crawler-factory sync https://www.example.com/ --site example',
      'crawler-factory sync https://www.example.com/ --site example --schedule 24h',
      'DATABASE_URL=postgres://127.0.0.1/test REDIS_URL=redis://127.0.0.1:6379 crawler-factory sync --resume <syncId>',
    ]),
  );
  sync.action(run(async () => (await import('./commands/sync.js')).syncCommand));

  const sites = program.command('sites').summary('list, change or remove the sites of the URL inventory (DATABASE_URL, else PGlite in --db DIR)');
  const sitesAction = (action: string) =>
    run(async () => {
      const { sitesCommand } = await import('./commands/sites.js');
      return ((positionals: string[], flags: never, io: Io) => sitesCommand([action, ...positionals], flags, io)) as Action;
    });
  const dbOption = '--db <dir>';
  const dbHelp = 'PGlite data directory when DATABASE_URL is unset (default .crawler-factory/db)';
  sites.command('list').summary('every site as NDJSON: options, URL count, last sync').option(dbOption, dbHelp).action(sitesAction('list'));
  sites
    .command('sitemaps')
    .summary("a site's sitemaps as NDJSON, failing first: where found, status, figures, findings, failed-sync streak")
    .argument('<siteId>', 'the site')
    .option('--status <status>', 'only ok, has_issues or failed')
    .option('--kind <kind>', 'only urlset, sitemapindex, text, rss or atom')
    .option('--id <sitemapId>', 'one sitemap, with the history of its reads, as JSON')
    .option(dbOption, dbHelp)
    .action(sitesAction('sitemaps'));
  sites
    .command('rm')
    .summary('remove a site and every row of it (refused while a sync runs)')
    .argument('<siteId>', 'the site')
    .option(dbOption, dbHelp)
    .action(sitesAction('rm'));
  const sitesSet = sites
    .command('set')
    .summary("change a site's root URL, limits or sub-tree (refused while a sync runs)")
    .argument('<siteId>', 'the site')
    .option(dbOption, dbHelp)
    .option('--root <url>', 'a new root URL (checked as on create: no credentials, a host the network flags allow)')
    .option('--max-urls <n>', 'stop a sync after N URLs')
    .option('--max-depth <n>', 'deepest index level followed')
    .option('--concurrency <n>', 'sitemaps in flight, at most 16')
    .option('--timeout <ms>', 'per-request wall clock, at most 60000')
    .option('--user-agent <ua>', 'User-Agent header')
    .option('--path-prefix <group>', 'sub-tree: keep this path group, "/" or "/name/" (repeatable; with --locale replaces the filter)', collect)
    .option('--locale <tag>', 'sub-tree: keep this locale (repeatable)', collect)
    .option('--unset <option>', 'remove an option: maxUrls, maxDepth, concurrency, timeoutMs, userAgent, filter, ... (repeatable)', collect)
    .option('--schedule <interval>', 'sync by itself every 30m, 6h, 24h, 7d (at least 15m), or off (allowed while a sync runs)')
    .option('--allow-private', 'a new root may be loopback or private')
    .option('--allow-host <host[:port]>', 'a new root may be this private host (repeatable)', collect)
    .option('--resolve <host:port:addr>', 'static DNS override (repeatable)', collect)
    .action(sitesAction('set'));
  sitesSet.addHelpText(
    'after',
    examples([
      'crawler-factory sites set shop --path-prefix /blog/ --locale en-us --max-urls 100000',
      'crawler-factory sites set shop --unset filter',
      'crawler-factory sites set shop --schedule 24h',
    ]),
  );
  sites.addHelpText(
    'after',
    examples(['crawler-factory sites list', 'crawler-factory sites rm shop', 'DATABASE_URL=postgres://127.0.0.1/test crawler-factory sites list']),
  );

  const demo = program
    .command('demo')
    .summary('serve the bundled demo site on 127.0.0.1 and discover it')
    .option('--port <n>', 'port of the demo site (default: a free one)')
    .option('--keep', 'keep serving after the walk (Ctrl-C to stop)')
    .option('--urls', 'print every URL instead of the summary');
  addFilterOptions(addNetworkOptions(outputOptions(demo, ['lines', 'ndjson', 'csv', 'json'])));
  demo.addHelpText('after', examples(['crawler-factory demo', 'crawler-factory demo --ndjson | head']));
  demo.action(run(async () => (await import('./commands/demo.js')).demoCommand));
}

/** Logs on stderr (stdout carries data): silent unless -v, LOG_LEVEL or FACTORY_LOG_LEVEL. */
async function configureLogs(verbose: boolean, env: NodeJS.ProcessEnv): Promise<void> {
  const { logLevelFrom, sendLogsTo, setLogLevel } = await import('../lib/index.js');
  sendLogsTo('stderr');
  // Child failures are printed as data (stderr lines or NDJSON events): logs are for -v.
  setLogLevel(logLevelFrom(env) ?? (verbose ? 'info' : 'error'));
}

/** Builds the `crawler-factory` program over the given streams; `result.code` holds the action's exit code. */
export function buildProgram(io: Io, result: { code: number; ran: boolean }): Command {
  const program = new Command('crawler-factory')
    .description('Find every URL a site publishes in its sitemaps: streaming, SSRF-safe, resumable.')
    .version(packageVersion(), '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help (every command has its own: crawler-factory walk --help)')
    .showSuggestionAfterError(true)
    .showHelpAfterError('(add --help for usage)')
    .exitOverride()
    .configureOutput({ writeOut: (text) => io.stdout.write(text), writeErr: (text) => io.stderr.write(text) });
  program.addHelpText(
    'after',
    '\nExit: 0 done (child errors reported), 1 fatal error, 2 usage error, 130 interrupted.\nEnvironment: FACTORY_LOG_LEVEL, LOG_LEVEL, FACTORY_ALLOW_HOSTS, FACTORY_RESOLVE, HTTPS_PROXY, NO_PROXY, REDIS_URL.\n',
  );
  const run =
    (load: () => Promise<Action>) =>
    async (...args: unknown[]) => {
      const command = args.at(-1) as Command;
      result.ran = true;
      await configureLogs(command.opts().verbose === true, io.env);
      const positionals = command.processedArgs.flatMap((value: unknown) =>
        Array.isArray(value) ? (value as string[]) : value === undefined ? [] : [String(value)],
      );
      result.code = await (await load())(positionals, command.opts() as never, io);
    };
  registerCommands(program, run);
  return program;
}

export { CommanderError };
