import { parseCommandArgs, requirePositional, walkOptionsFrom } from '../args.js';
import { LineWriter } from '../output.js';
import { discover } from '../../lib/factory/discovery/discovery.js';
import { resolveWalkOptions } from '../../lib/factory/limits.js';

/** `crawler-factory discover <rootUrl>`: the site's sitemap URLs, one a line (or NDJSON with --ndjson). */
export async function discoverCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, {});
  const rootUrl = requirePositional(positionals, 'rootUrl');
  const found = await discover(rootUrl, resolveWalkOptions(walkOptionsFrom(values)));
  const writer = new LineWriter();
  if (!values.ndjson) {
    for (const problem of found.problems) process.stderr.write(`skipped ${problem.kind} ${problem.url}: ${problem.message}\n`);
    if (found.sitemaps.length === 0) process.stderr.write(`no sitemap found for ${found.rootUrl}\n`);
    await writer.lines(found.sitemaps);
    return 0;
  }
  await writer.json([
    ...found.problems.map((problem) => ({ type: 'error', ...problem })),
    ...found.sitemaps.map((url) => ({ type: 'sitemap', url, depth: 0, source: found.source })),
    { type: 'summary', sitemaps: found.sitemaps.length, source: found.source, requests: found.requests },
  ]);
  return 0;
}
