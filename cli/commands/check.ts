import { checkSite } from '../../lib/index.js';
import { checkReportLines } from '../check-report.js';
import { resolveInput } from '../inputs.js';
import type { Io } from '../io.js';
import { walkOptionsFrom, type CommonFlags } from '../options.js';
import { LineWriter } from '../output.js';

/**
 * `crawler-factory check <input>`: the findings of a site's sitemaps (a root is discovered first) or of one sitemap,
 * as a linter: exit 1 when any error is found (a failed sitemap is one), 0 otherwise.
 */
export async function checkCommand([raw = '']: string[], flags: CommonFlags & { format?: 'human' | 'json' | 'ndjson' }, io: Io): Promise<number> {
  const input = resolveInput(raw, io, flags.quiet);
  const report = await checkSite(input.url, { ...walkOptionsFrom(flags, io.env), readLocalFiles: input.local });
  const writer = new LineWriter(io.stdout);
  if (flags.format === 'json') await writer.raw(`${JSON.stringify(report, null, 2)}\n`);
  else if (flags.format === 'ndjson') {
    const { sitemaps, findings, counts, ...run } = report;
    await writer.json([
      ...sitemaps.map((sitemap) => ({ type: 'sitemap', ...sitemap })),
      ...findings.map((finding) => ({ type: 'finding', ...finding })),
      { type: 'summary', ...run, ...counts },
    ]);
  } else await writer.lines(checkReportLines(report));
  return report.counts.errors > 0 ? 1 : 0;
}
