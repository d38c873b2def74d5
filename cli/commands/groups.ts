import { parseCommandArgs, requirePositional, walkOptionsFrom } from '../args.js';
import { LineWriter } from '../output.js';
import { groupByPathPrefix } from '../../lib/factory/scope/path-grouper.js';
import { walkSitemap, type WalkCallOptions } from '../../lib/factory/sitemap.js';

// Child sitemaps that fail are reported on stderr, as `walk` does; the groups on stdout stay pure NDJSON.
const reportChildErrors: WalkCallOptions['onEvent'] = (event) => {
  if (event.type === 'error') process.stderr.write(`error ${event.kind} ${event.url ?? ''}: ${event.message}\n`);
};

/** `crawler-factory groups <url>`: the PathGroups of a site or sitemap as NDJSON, largest first, `other` last. */
export async function groupsCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, {});
  const url = requirePositional(positionals, 'url');
  const writer = new LineWriter();
  const batches = walkSitemap(url, { ...walkOptionsFrom(values), onEvent: reportChildErrors });
  for await (const group of groupByPathPrefix(batches)) {
    await writer.json([group]);
    if (writer.isClosed) break;
  }
  return 0;
}
