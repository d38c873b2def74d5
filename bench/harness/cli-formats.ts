import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, openSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import type { BuiltContender } from './build.js';
import type { Scenario } from './config.js';
import { median } from './measure.js';
import { runContender, startTreeProcess } from './processes.js';

/** The CLI output formats measured, `lines` first: every other one is judged against it. */
export const CLI_FORMATS = ['lines', 'ndjson', 'csv', 'json'] as const;
/** Issue 18's goals: each format within 1.5x of `lines`, and the CLI at least 6x crawlee's `parseSitemap`. */
export const FORMAT_GOAL = 1.5;
export const CRAWLEE_GOAL = 6;

/** One process run: its wall time (spawn to exit) and the load average when it started. */
export interface ProcessRun {
  wallMs: number;
  ok: boolean;
  load1: number;
}

/** The CLI section's figures: per format and crawlee, every run and the medians (whole processes, wall time). */
export interface CliFormatsReport {
  tree: string;
  expectedUrls: number;
  runs: Record<string, ProcessRun[]>;
  medianMs: Record<string, number | null>;
  /** Each format's median over `lines`'. */
  vsLines: Record<string, number | null>;
  /** crawlee's median over each format's: how many times faster the CLI is, whole process against whole process. */
  vsCrawlee: Record<string, number | null>;
  error: string | null;
}

// The built executable as users run it: `npm run build` makes it (dist/ is not tracked).
function builtBin(root: string): string | null {
  const bin = join(root, 'dist', 'cli', 'bin.js');
  return existsSync(bin) ? bin : null;
}

async function runBin(bin: string, indexUrl: string, format: string): Promise<ProcessRun> {
  const load1 = loadavg()[0] ?? 0;
  const sink = openSync('/dev/null', 'w');
  const started = performance.now();
  try {
    const child = spawn(process.execPath, [bin, 'walk', indexUrl, '--allow-private', '--quiet', '--format', format], {
      stdio: ['ignore', sink, 'ignore'],
      env: { ...process.env, LOG_LEVEL: 'silent' },
    });
    const [code] = (await once(child, 'close')) as [number | null];
    return { wallMs: performance.now() - started, ok: code === 0, load1 };
  } finally {
    closeSync(sink);
  }
}

/**
 * Serves the scenario's tree (issue 18's: one loc in ten with `&amp;`) and runs, round after round, crawlee's
 * bundled contender and the built bin once per format, each a whole process with stdout to /dev/null, as the
 * acceptance harness does. Wall time covers the whole process (start-up included) for both sides.
 */
export async function runCliFormats(root: string, scenario: Scenario, crawlee: BuiltContender | undefined, timeoutMs: number): Promise<CliFormatsReport> {
  const runs: Record<string, ProcessRun[]> = Object.fromEntries([...CLI_FORMATS, 'crawlee'].map((name) => [name, []]));
  const bin = builtBin(root);
  const empty = { tree: scenario.name, expectedUrls: scenario.children * scenario.perChild, runs, medianMs: {}, vsLines: {}, vsCrawlee: {} };
  if (bin === null) return { ...empty, error: 'dist/cli/bin.js missing: run `npm run build` first' };
  process.stderr.write(
    `[bench] cli: warming a tree of ${scenario.children} x ${scenario.perChild} URLs${scenario.amp ? ' (one loc in ten with &amp;)' : ''}\n`,
  );
  const tree = await startTreeProcess(root, scenario);
  try {
    for (let round = 0; round < scenario.runs; round += 1) {
      if (crawlee !== undefined && 'file' in crawlee) {
        const outcome = await runContender(crawlee.file, tree.ready.indexUrl, timeoutMs);
        runs.crawlee?.push(outcome.ok ? { wallMs: outcome.processMs, ok: true, load1: loadavg()[0] ?? 0 } : { wallMs: 0, ok: false, load1: 0 });
      }
      for (const format of CLI_FORMATS) {
        const run = await runBin(bin, tree.ready.indexUrl, format);
        runs[format]?.push(run);
        process.stderr.write(
          `[bench] cli round ${round + 1}/${scenario.runs} ${format}: ${(run.wallMs / 1000).toFixed(2)} s${run.ok ? '' : ' FAILED'} (load ${run.load1.toFixed(1)})\n`,
        );
      }
    }
  } finally {
    await tree.stop();
  }
  const medianMs = Object.fromEntries(
    Object.entries(runs).map(([name, list]) => {
      const good = list.filter((run) => run.ok).map((run) => run.wallMs);
      return [name, good.length === 0 ? null : median(good)];
    }),
  );
  const ratio = (a: number | null | undefined, b: number | null | undefined) => (a == null || b == null || b === 0 ? null : a / b);
  const vsLines = Object.fromEntries(CLI_FORMATS.map((format) => [format, ratio(medianMs[format], medianMs.lines)]));
  const vsCrawlee = Object.fromEntries(CLI_FORMATS.map((format) => [format, ratio(medianMs.crawlee, medianMs[format])]));
  return { ...empty, medianMs, vsLines, vsCrawlee, error: null };
}

/** The CLI section as markdown, with issue 18's goals. */
export function cliFormatsMarkdown(report: CliFormatsReport): string {
  if (report.error !== null) return `\nCLI formats: not run (${report.error})\n`;
  const seconds = (ms: number | null | undefined) => (ms == null ? '-' : (ms / 1000).toFixed(2));
  const times = (x: number | null | undefined) => (x == null ? '-' : `${x.toFixed(2)}x`);
  const rows = CLI_FORMATS.map((format) => {
    const vsLines = report.vsLines[format];
    const vsCrawlee = report.vsCrawlee[format];
    const met = vsLines != null && vsCrawlee != null && vsLines <= FORMAT_GOAL && vsCrawlee >= CRAWLEE_GOAL ? 'yes' : 'NO';
    return `| ${format} | ${seconds(report.medianMs[format])} | ${times(vsLines)} | ${times(vsCrawlee)} | ${met} |`;
  });
  return [
    '',
    `CLI as a process (\`walk --format F\`, stdout to /dev/null), tree ${report.tree}, against crawlee's process (${seconds(report.medianMs.crawlee)} s median); goals: <= ${FORMAT_GOAL}x lines, >= ${CRAWLEE_GOAL}x crawlee:`,
    '',
    '| format | wall (s, median) | vs lines | crawlee / this | goal met |',
    '|---|---:|---:|---:|---|',
    ...rows,
    '',
  ].join('\n');
}
