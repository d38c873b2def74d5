import { intFlag, parseCommandArgs, walkOptionsFrom } from '../args.js';
import { progressWanted } from '../progress.js';
import { runWalk } from './walk.js';
import { startDemoSite } from '../../lib/demo/demo-site.js';

const DEMO_FLAGS = {
  port: { type: 'string' },
  keep: { type: 'boolean', default: false },
  urls: { type: 'boolean', default: false },
} as const;

/**
 * `crawler-factory demo`: serves the bundled demo site on 127.0.0.1 and discovers it end to end.
 * Prints a summary (or every URL with --urls, or NDJSON events with --ndjson); --keep leaves the site up.
 */
export async function demoCommand(args: string[]): Promise<number> {
  const { values } = parseCommandArgs(args, DEMO_FLAGS);
  const port = intFlag('port', values.port, 0, 65_535) ?? 0;
  const site = await startDemoSite({ port });
  process.stderr.write(`demo site serving on ${site.origin} (robots.txt, nested index, gzip children, hreflang, extensions)\n`);
  const options = walkOptionsFrom(values);
  options.net = { ...options.net, allowHosts: [...(options.net?.allowHosts ?? []), new URL(site.origin).host] };
  const quiet = !values.urls && !values.ndjson;
  const startedAt = Date.now();
  const outcome = await runWalk(site.rootUrl, options, {
    ndjson: values.ndjson,
    progress: progressWanted(values.progress),
    ...(quiet ? { discard: true } : {}),
  });
  const seconds = (Date.now() - startedAt) / 1000;
  if (quiet) {
    process.stdout.write(
      `discovered ${outcome.urls.toLocaleString('en')} page URLs from ${outcome.sitemaps} sitemaps ` +
        `(${outcome.errors} reported errors, as planted) in ${seconds.toFixed(1)} s\n`,
    );
  }
  if (values.keep) {
    process.stderr.write(`still serving ${site.rootUrl} (Ctrl-C to stop)\n`);
    await new Promise(() => undefined);
  }
  await site.close();
  return 0;
}
