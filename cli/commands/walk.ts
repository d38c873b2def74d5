import { parseCommandArgs, requirePositional, walkOptionsFrom } from '../args.js';
import { LineWriter } from '../output.js';
import { ProgressLine, progressWanted } from '../progress.js';
import { walkSitemapEvents, walkUrlEvents, type WalkCallOptions, type WalkEvent } from '../../lib/factory/sitemap.js';

/** How a walk is shown: NDJSON events or plain URLs, with or without a progress line. */
export interface WalkOutput {
  ndjson: boolean;
  progress: boolean;
  /** Count only, print nothing (the demo's summary mode). */
  discard?: boolean;
}

/** What the caller learns from a finished walk. */
export interface WalkOutcome {
  urls: number;
  sitemaps: number;
  errors: number;
}

/** Turns a walk event into its NDJSON line (entries become `url` events). */
function ndjsonLines<T>(event: WalkEvent<T>): unknown[] {
  if (event.type === 'batch') return event.items.map((entry) => ({ type: 'url', ...(entry as object) }));
  return [event];
}

/** Walks `url` (a site root is discovered first) and streams the result to stdout. */
export async function runWalk(url: string, options: WalkCallOptions, output: WalkOutput): Promise<WalkOutcome> {
  const writer = new LineWriter();
  const progress = new ProgressLine(output.progress);
  const counts = { urls: 0, sitemaps: 0, errors: 0 };
  const events: AsyncGenerator<WalkEvent<unknown>> = output.ndjson ? walkSitemapEvents(url, options) : walkUrlEvents(url, options);
  for await (const event of events) {
    if (event.type === 'batch') counts.urls += event.items.length;
    if (event.type === 'sitemap') counts.sitemaps += 1;
    if (event.type === 'error') {
      counts.errors += 1;
      if (!output.ndjson) process.stderr.write(`${output.progress ? '\n' : ''}error ${event.kind} ${event.url ?? ''}: ${event.message}\n`);
    }
    if (output.discard) progress.update(counts);
    else if (output.ndjson) await writer.json(ndjsonLines(event));
    else if (event.type === 'batch') await writer.lines(event.items as string[]);
    if (writer.isClosed) break;
    progress.update(counts);
  }
  progress.done(counts);
  return counts;
}

/** `crawler-factory walk <url>`: page URLs, one a line (or NDJSON events with --ndjson). */
export async function walkCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, {});
  const url = requirePositional(positionals, 'url');
  await runWalk(url, walkOptionsFrom(values), { ndjson: values.ndjson, progress: progressWanted(values.progress) });
  return 0;
}
