import { startDemoSite } from '../../lib/demo/index.js';
import { resolveWalkOptions } from '../../lib/index.js';
import type { Io } from '../io.js';
import { intFlag, walkOptionsFrom } from '../options.js';
import { stdoutSink } from '../output.js';
import { runWalk } from '../walk-run.js';
import { exitCodeOf, watchInterrupts, type WalkFlags } from './walk.js';

/**
 * `crawler-factory demo`: serves the bundled demo site on 127.0.0.1 and discovers it end to end.
 * Prints a summary (or every URL with --urls, or the data in any --format); --keep leaves the site up.
 */
export async function demoCommand(_args: string[], flags: WalkFlags & { port?: string; keep?: boolean; urls?: boolean }, io: Io): Promise<number> {
  const port = intFlag('port', flags.port, 0, 65_535) ?? 0;
  const site = await startDemoSite({ port });
  io.stderr.write(`demo site serving on ${site.origin} (robots.txt, nested index, gzip children, hreflang, extensions)\n`);
  const options = resolveWalkOptions(walkOptionsFrom(flags, io.env));
  options.net = { ...options.net, allowHosts: [...options.net.allowHosts, new URL(site.origin).host] };
  const format = flags.ndjson ? 'ndjson' : flags.format;
  const discard = !flags.urls && format === 'lines' && !flags.ndjson;
  const controller = new AbortController();
  const watch = watchInterrupts(io, controller);
  const display = { format, progress: flags.progress === true || io.stderrIsTTY, quiet: flags.quiet === true, discard };
  const inputs = (async function* () {
    yield { url: site.rootUrl, local: false };
  })();
  const outcome = await runWalk(inputs, { ...options, signal: controller.signal }, display, { ...io, sink: stdoutSink(io.stdout) }).finally(watch.dispose);
  if (discard) {
    const { counts } = outcome;
    io.stdout.write(
      `discovered ${counts.urls.toLocaleString('en')} page URLs from ${counts.sitemapsDone} sitemaps ` +
        `(${counts.errors} reported errors, as planted) in ${(counts.elapsedMs() / 1000).toFixed(1)} s\n`,
    );
  }
  if (flags.keep) {
    io.stderr.write(`still serving ${site.rootUrl} (Ctrl-C to stop)\n`);
    await new Promise((stop) => process.once('SIGINT', stop));
  }
  await site.close();
  return exitCodeOf(outcome, watch.signalled());
}
