import { groupByPathPrefix, walkShardEntries } from '../../lib/index.js';
import { resolveInput } from '../inputs.js';
import type { Io } from '../io.js';
import { walkOptionsFrom, type CommonFlags } from '../options.js';
import { LineWriter } from '../output.js';

/** `crawler-factory groups <input>`: the PathGroups of a site or sitemap as NDJSON, largest first, `other` last. */
export async function groupsCommand([raw = '']: string[], flags: CommonFlags, io: Io): Promise<number> {
  const input = resolveInput(raw, io, flags.quiet);
  const writer = new LineWriter(io.stdout);
  // Child sitemaps that fail are reported on stderr, as `walk` does; the groups on stdout stay pure NDJSON.
  // Each URL with its locale (its hreflang says `/ca/` is Catalan), so the groups are the ones a filter keeps.
  const batches = walkShardEntries(input.url, {
    ...walkOptionsFrom(flags, io.env),
    readLocalFiles: input.local,
    onEvent: (event) => {
      if (event.type === 'error' && !flags.quiet) io.stderr.write(`error ${event.kind} ${event.url ?? ''}: ${event.message}\n`);
    },
  });
  for await (const group of groupByPathPrefix(batches)) {
    await writer.json([group]);
    if (writer.isClosed) break;
  }
  return 0;
}
