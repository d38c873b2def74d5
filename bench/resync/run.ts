// Incremental re-sync, measured (issue 11): a first walk of the 1M-URL tree, then 1% of its children change and it is
// walked again with the first run's validators, once with index lastmods (unchanged children are not fetched) and once
// without (every child asked for conditionally, 304s). Each re-sync's bytes (all the server wrote, headers included)
// and wall time are compared with the first run's, and its final URL set (previous URLs of unchanged sitemaps plus
// the URLs read) with a full walk of the changed tree.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { walkSitemapEvents } from '../../lib/factory/sitemap.js';
import type { Validators } from '../../lib/core/types.js';
import { ValidatorLog } from '../../lib/factory/walk/validator-log.js';
import { markedJson, READY_MARKER, type TreeReady } from '../harness/protocol.js';

/** The tree re-synced: `children` urlsets of `perChild` URLs, `changed` of them changing before each re-sync. */
export interface ResyncShape {
  name: string;
  children: number;
  perChild: number;
  changed: number;
}

/** One walk of the tree as measured. */
export interface ResyncPass {
  name: string;
  walkMs: number;
  /** Bytes the server wrote during the walk (status lines, headers, bodies). */
  bytes: number;
  urlsRead: number;
  sitemapsRead: number;
  sitemapsUnchanged: number;
  /** The URL set after this pass (unchanged sitemaps keep the previous pass's URLs) equals a full walk's; null for full walks. */
  sameUrlSet: boolean | null;
  bytesRatio: number | null;
  timeRatio: number | null;
  /** Wall time over the full walk of the same changed tree right after it (warm, like the re-sync): the fairer ratio. */
  timeVsFullWalk: number | null;
}

/** The benchmark's figures. */
export interface ResyncReport {
  shape: ResyncShape;
  passes: ResyncPass[];
}

/** One sitemap's URLs as a count and an order-free sum of hashes: enough to compare sets of a million without keeping them. */
interface Print {
  count: number;
  sum: number;
}
type Prints = Map<string, Print>;

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return hash;
}

function samePrints(a: Prints, b: Prints): boolean {
  if (a.size !== b.size) return false;
  for (const [source, print] of a) {
    const other = b.get(source);
    if (!other || other.count !== print.count || other.sum !== print.sum) return false;
  }
  return true;
}

/** One walk: its time, the validators it leaves, and the URL set it ends with (`carried` supplies unchanged sitemaps' URLs). */
async function walk(indexUrl: string, previous: { validators: Validators; prints: Prints } | null) {
  const prints: Prints = new Map();
  const log = new ValidatorLog();
  const counts = { urlsRead: 0, sitemapsRead: 0, sitemapsUnchanged: 0 };
  const started = performance.now();
  const events = walkSitemapEvents(indexUrl, { net: { allowPrivate: true }, ...(previous ? { previous: previous.validators } : {}) });
  for await (const event of events) {
    if (event.type === 'batch') {
      counts.urlsRead += event.items.length;
      for (const entry of event.items) {
        const print = prints.get(entry.source) ?? { count: 0, sum: 0 };
        print.count += 1;
        print.sum = (print.sum + fnv1a(entry.loc)) % 2 ** 48;
        prints.set(entry.source, print);
      }
    } else if (event.type === 'sitemap') {
      log.record(event);
      if (!event.unchanged) counts.sitemapsRead += 1;
      else {
        counts.sitemapsUnchanged += 1;
        const kept = previous?.prints.get(event.url);
        if (kept) prints.set(event.url, kept);
      }
    } else if (event.type === 'error') throw new Error(`re-sync bench: ${event.kind} ${event.url}: ${event.message}`);
  }
  return { walkMs: performance.now() - started, validators: log.toJSON(), prints, ...counts };
}

async function startServer(root: string, shape: ResyncShape) {
  const args = [
    join(root, 'bin', 'run-ts.mjs'),
    join(root, 'bench', 'resync', 'serve.ts'),
    '--children',
    String(shape.children),
    '--per-child',
    String(shape.perChild),
  ];
  const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  let ready: TreeReady | null = null;
  while (ready === null) {
    const [chunk] = (await once(child.stdout, 'data')) as [Buffer];
    output += chunk.toString();
    ready = markedJson(output, READY_MARKER) as TreeReady | null;
  }
  const base = new URL(ready.indexUrl).origin;
  const control = async (path: string, method = 'POST') => (await fetch(`${base}${path}`, { method })).text();
  return { indexUrl: ready.indexUrl, control, stop: () => child.kill('SIGTERM') };
}

/** `count` children spread over the tree, shifted by `offset` so each round changes others. */
function spread(shape: ResyncShape, offset: number): number[] {
  const step = Math.floor(shape.children / shape.changed);
  return Array.from({ length: shape.changed }, (_, k) => (k * step + offset) % shape.children);
}

/** Runs the first walk and both re-syncs against a fresh server; progress on stderr. */
export async function runResyncBench(root: string, shape: ResyncShape): Promise<ResyncReport> {
  const server = await startServer(root, shape);
  const passes: ResyncPass[] = [];
  try {
    const measured = async (name: string, previous: Parameters<typeof walk>[1]) => {
      const before = Number(await server.control('/bench/_bytes', 'GET'));
      const result = await walk(server.indexUrl, previous);
      const bytes = Number(await server.control('/bench/_bytes', 'GET')) - before;
      process.stderr.write(
        `[bench] resync ${shape.name} ${name}: ${(result.walkMs / 1000).toFixed(2)} s, ${bytes} bytes, ${result.urlsRead} URLs read, ${result.sitemapsUnchanged} sitemaps unchanged\n`,
      );
      return { ...result, bytes };
    };
    const first = await measured('first walk', null);
    passes.push(passOf('first walk', first, null, first));
    let last = first;
    for (const [round, lastmod] of [
      [1, true],
      [2, false],
    ] as const) {
      await server.control(`/bench/_lastmod?on=${lastmod ? 1 : 0}`);
      await server.control(`/bench/_change?children=${spread(shape, round).join(',')}`);
      const name = lastmod ? 're-sync, index lastmods' : 're-sync, conditional GETs (no index lastmods)';
      const resync = await measured(name, { validators: last.validators, prints: last.prints });
      const full = await measured(`full walk after round ${round}`, null);
      passes.push({ ...passOf(name, resync, samePrints(resync.prints, full.prints), first), timeVsFullWalk: resync.walkMs / full.walkMs });
      last = resync;
    }
  } finally {
    server.stop();
  }
  return { shape, passes };
}

function passOf(
  name: string,
  run: Awaited<ReturnType<typeof walk>> & { bytes: number },
  same: boolean | null,
  first: { walkMs: number; bytes: number },
): ResyncPass {
  const isFirst = same === null;
  return {
    name,
    walkMs: run.walkMs,
    bytes: run.bytes,
    urlsRead: run.urlsRead,
    sitemapsRead: run.sitemapsRead,
    sitemapsUnchanged: run.sitemapsUnchanged,
    sameUrlSet: same,
    bytesRatio: isFirst ? null : run.bytes / first.bytes,
    timeRatio: isFirst ? null : run.walkMs / first.walkMs,
    timeVsFullWalk: null,
  };
}

const percent = (value: number | null) => (value === null ? '' : `${(value * 100).toFixed(2)}%`);

/** The report as a markdown table with the targets (bytes <= 5%, time <= 10%, same URL set). */
export function resyncMarkdown(report: ResyncReport): string {
  const { shape } = report;
  const head = `\n### Incremental re-sync: ${shape.name} (${shape.children} children x ${shape.perChild.toLocaleString('en')} URLs, ${shape.changed} changed per round)\n\n`;
  const rows = report.passes.map((p) => {
    const same = p.sameUrlSet === null ? '' : p.sameUrlSet ? 'yes' : 'NO';
    const met = p.bytesRatio === null || p.timeRatio === null ? '' : p.bytesRatio <= 0.05 && p.timeRatio <= 0.1 && p.sameUrlSet === true ? 'yes' : 'no';
    return `| ${p.name} | ${(p.walkMs / 1000).toFixed(3)} | ${p.bytes.toLocaleString('en')} | ${p.urlsRead.toLocaleString('en')} | ${p.sitemapsRead} | ${p.sitemapsUnchanged} | ${percent(p.bytesRatio)} | ${percent(p.timeRatio)} | ${percent(p.timeVsFullWalk)} | ${same} | ${met} |`;
  });
  const table = [
    '| pass | wall (s) | bytes sent | URLs read | sitemaps read | unchanged | bytes vs first (<= 5%) | time vs first (<= 10%) | time vs a warm full walk | same URL set | met |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|',
    ...rows,
  ];
  return `${head}${table.join('\n')}\n`;
}
