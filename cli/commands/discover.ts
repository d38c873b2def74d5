import { discover, resolveWalkOptions } from '../../lib/index.js';
import { resolveInput } from '../inputs.js';
import { UsageError, type Io } from '../io.js';
import { walkOptionsFrom, type CommonFlags } from '../options.js';
import { LineWriter } from '../output.js';

/**
 * `crawler-factory discover <rootUrl>`: the site's sitemap URLs, one a line; with `--format ndjson` (or `--ndjson`)
 * each as an object saying where it came from (`robots`, `home-page`, `fallback`), errors, and a summary last.
 */
export async function discoverCommand([raw = '']: string[], flags: CommonFlags & { ndjson?: boolean; format?: 'lines' | 'ndjson' }, io: Io): Promise<number> {
  const input = resolveInput(raw, io, flags.quiet);
  if (input.local) throw new UsageError('discover takes a site URL, not a local file (walk reads sitemap files)');
  const found = await discover(input.url, resolveWalkOptions(walkOptionsFrom(flags, io.env)));
  const writer = new LineWriter(io.stdout);
  if (!flags.ndjson && flags.format !== 'ndjson') {
    if (!flags.quiet) for (const problem of found.problems) io.stderr.write(`skipped ${problem.kind} ${problem.url}: ${problem.message}\n`);
    if (found.sitemaps.length === 0 && !flags.quiet) io.stderr.write(`no sitemap found for ${found.rootUrl}\n`);
    if (found.canonicalRoot !== null && !flags.quiet) io.stderr.write(`sitemaps found at ${found.canonicalRoot}: the site's canonical root\n`);
    await writer.lines(found.sitemaps);
    return 0;
  }
  await writer.json([
    ...found.problems.map((problem) => ({ type: 'error', ...problem })),
    ...found.sitemaps.map((url) => ({ type: 'sitemap', url, depth: 0, source: found.source })),
    { type: 'summary', sitemaps: found.sitemaps.length, source: found.source, canonicalRoot: found.canonicalRoot, requests: found.requests },
  ]);
  return 0;
}
