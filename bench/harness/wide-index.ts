import { join } from 'node:path';
import { jsonLinesOf } from './processes.js';
import type { WideIndexResult } from '../wide-index.js';

/** Issue 18's goals for one wide-index run (one process of the built bin). */
export const WIDE_INDEX_GOALS = { wallMs: 40_000, rssGrowthBytes: 256 * 1024 * 1024 } as const;

/** Issue 18's goal for many small sitemaps through the CLI: `job run` on Redis over an index of 50,000 one-URL children. */
export const CLI_JOB_SITEMAPS_PER_SECOND_GOAL = 3_000;

/**
 * Runs bench/wide-index.ts (its own loopback server, then the built bin as `walk`, as `job run` on Redis and as `job
 * run --store memory` over an index of each size) in a fresh process and reads its JSON lines. The bin must be built
 * (`npm run build`).
 */
export async function runWideIndex(root: string, sizes: number[]): Promise<WideIndexResult[]> {
  const args = [join(root, 'bin', 'run-ts.mjs'), join('bench', 'wide-index.ts'), '--children', sizes.join(','), '--json'];
  process.stderr.write(
    `[bench] wide-index: ${sizes.map((size) => size.toLocaleString('en-US')).join(' and ')} one-URL children, built bin, walk, Redis job and memory job\n`,
  );
  return jsonLinesOf<WideIndexResult>(root, args);
}

/** The figures as a markdown table, with the goals. */
export function wideIndexMarkdown(results: WideIndexResult[]): string {
  const mib = (bytes: number) => (bytes / 1048576).toFixed(0);
  const walkRate = (children: number) => results.find((r) => r.mode === 'walk' && r.children === children)?.sitemapsPerSecond ?? 0;
  const rows = results.map((r) => {
    const rate = Math.round(r.sitemapsPerSecond).toLocaleString('en-US');
    const walk = walkRate(r.children);
    const ratio = r.mode === 'walk' || walk === 0 ? '' : ` (${(r.sitemapsPerSecond / walk).toFixed(2)}x walk)`;
    const errors =
      Object.entries(r.errors)
        .map(([kind, count]) => `${kind} x${count}`)
        .join(', ') || 'none';
    return `| ${r.mode} | ${r.children.toLocaleString('en-US')} | ${(r.wallMs / 1000).toFixed(1)} | ${rate}${ratio} | ${r.cpuUsPerSitemap.toFixed(0)} | ${mib(r.peakRssBytes)} | ${mib(r.rssGrowthBytes)} | ${r.urls.toLocaleString('en-US')} | ${errors} | ${r.ok ? 'yes' : `NO${r.note ? ` (${r.note})` : ''}`} |`;
  });
  return [
    '',
    `Wide indexes (one-URL children, past maxChildrenPerIndex beyond 50,000; built bin, default flags; goal < ${WIDE_INDEX_GOALS.wallMs / 1000} s and < ${mib(WIDE_INDEX_GOALS.rssGrowthBytes)} MiB RSS growth; ` +
      `the Redis job >= ${CLI_JOB_SITEMAPS_PER_SECOND_GOAL.toLocaleString('en-US')} sitemaps/s):`,
    '',
    '| mode | children | wall (s) | sitemaps/s | CPU us/sitemap | peak RSS (MiB) | growth (MiB) | URLs | errors | goal met |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---|---|',
    ...rows,
    '',
  ].join('\n');
}
