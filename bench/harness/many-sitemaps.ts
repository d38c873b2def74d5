import { join } from 'node:path';
import { jsonLinesOf } from './processes.js';
import type { ManySitemapsResult } from '../many-sitemaps.js';
import { bundleForNode } from './build.js';

/** Issue 11's goal for small sitemaps, in `walk` and in a job on Redis, with the default concurrency. */
export const SITEMAPS_PER_SECOND_GOAL = 3_000;

/**
 * Runs bench/many-sitemaps.ts (its own loopback server, then `walk` and a Redis job over an index of `children`
 * one-URL children) in a fresh process and reads its JSON lines. A mode that could not run comes back with `error`.
 * Bundled and run with plain `node`, like the contenders: the tsx loader's cost is not the library's.
 */
export async function runManySitemaps(root: string, children: number): Promise<ManySitemapsResult[]> {
  const file = await bundleForNode(root, join('bench', 'many-sitemaps.ts'), 'many-sitemaps');
  const args = [file, '--children', String(children), '--json'];
  process.stderr.write(`[bench] many-sitemaps: ${children} one-URL children, walk and Redis job\n`);
  return jsonLinesOf<ManySitemapsResult>(root, args, { ...process.env, LOG_LEVEL: 'silent' });
}

/** The figures as a markdown table, with the goal. */
export function manySitemapsMarkdown(results: ManySitemapsResult[]): string {
  const rows = results.map((r) => {
    if (r.error !== undefined) return `| ${r.mode} | ${r.children.toLocaleString('en-US')} | failed: ${r.error} | | | | | | | NO |`;
    const commands = r.storeCommandsPerSitemap === null ? '-' : r.storeCommandsPerSitemap.toFixed(2);
    const storeCpu = r.storeCpuUsPerSitemap === null ? '-' : r.storeCpuUsPerSitemap.toFixed(0);
    const met = r.ok && r.sitemapsPerSecond >= SITEMAPS_PER_SECOND_GOAL ? 'yes' : 'NO';
    const urls = r.ok ? r.urls.toLocaleString('en-US') : `MISMATCH ${r.urls}`;
    const rate = Math.round(r.sitemapsPerSecond).toLocaleString('en-US');
    const cpu = `${r.cpuUsPerSitemap.toFixed(0)} | ${r.serverCpuUsPerSitemap.toFixed(0)} | ${storeCpu}`;
    return `| ${r.mode} | ${r.children.toLocaleString('en-US')} | ${(r.wallMs / 1000).toFixed(2)} | ${rate} | ${cpu} | ${commands} | ${urls} | ${met} |`;
  });
  return [
    '',
    `Many small sitemaps (index of one-URL children, default concurrency; goal >= ${SITEMAPS_PER_SECOND_GOAL.toLocaleString('en-US')} sitemaps/s):`,
    '',
    '| mode | sitemaps | wall (s) | sitemaps/s | CPU us/sitemap: walker | server | Redis | store commands/sitemap | URLs found | goal met |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---|',
    ...rows,
    '',
  ].join('\n');
}
