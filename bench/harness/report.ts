import { cpus, totalmem } from 'node:os';
import type { ContenderName } from './config.js';
import type { ContenderSummary, ScenarioReport } from './measure.js';

/** Comparisons the issue asks for; null where a side did not run. */
export interface Ratios {
  /** Our URLs/s over crawlee's and sitemapper's, on the first (all-contender) scenario. */
  throughputVsCrawlee: number | null;
  /**
   * The same, round by round: each engine run over the crawlee run of its round (they run back to back), so the
   * spread the machine and each contender add shows next to the ratio of medians the target is judged on.
   */
  throughputVsCrawleeByRound: number[];
  throughputVsSitemapper: number | null;
  /** Our peak RSS over theirs (below 1 is less memory). */
  rssVsCrawlee: number | null;
  rssVsSitemapper: number | null;
  /** Our URLs/s over the hand scanner's: how close the engine is to the practical limit (1 would be at it). */
  throughputVsScanner: number | null;
  /** Peak RSS on the largest tree over the smallest, per contender (1.0 means flat). */
  rssGrowth: Partial<Record<ContenderName, number>>;
}

/** The issue's targets, each measured, with a verdict. */
export interface Target {
  name: string;
  measured: number | null;
  goal: string;
  met: boolean | null;
}

const find = (scenario: ScenarioReport | undefined, name: ContenderName): ContenderSummary | undefined =>
  scenario?.contenders.find((c) => c.name === name && c.median !== null);

function ratio(a: number | undefined, b: number | undefined): number | null {
  return a === undefined || b === undefined || b === 0 ? null : a / b;
}

// Contenders take turns, so run k of each belongs to round k; a round where either failed is left out.
function byRound(scenario: ScenarioReport | undefined, ours: ContenderName, theirs: ContenderName): number[] {
  const a = scenario?.contenders.find((c) => c.name === ours)?.runs ?? [];
  const b = scenario?.contenders.find((c) => c.name === theirs)?.runs ?? [];
  const ratios: number[] = [];
  for (let k = 0; k < Math.min(a.length, b.length); k++) {
    const x = a[k];
    const y = b[k];
    if (x?.ok === true && y?.ok === true && x.result.walkMs > 0) ratios.push(y.result.walkMs / x.result.walkMs);
  }
  return ratios;
}

/** Ratios between contenders and between tree sizes. */
export function computeRatios(scenarios: ScenarioReport[]): Ratios {
  const first = scenarios[0];
  const last = scenarios.length > 1 ? scenarios[scenarios.length - 1] : undefined;
  const ours = find(first, 'engine')?.median;
  const rssGrowth: Partial<Record<ContenderName, number>> = {};
  for (const name of ['engine', 'crawlee', 'sitemapper', 'scanner'] as const) {
    const growth = ratio(find(last, name)?.median?.maxRssMiB, find(first, name)?.median?.maxRssMiB);
    if (growth !== null) rssGrowth[name] = growth;
  }
  return {
    throughputVsCrawlee: ratio(ours?.urlsPerSec, find(first, 'crawlee')?.median?.urlsPerSec),
    throughputVsCrawleeByRound: byRound(first, 'engine', 'crawlee'),
    throughputVsSitemapper: ratio(ours?.urlsPerSec, find(first, 'sitemapper')?.median?.urlsPerSec),
    rssVsCrawlee: ratio(ours?.maxRssMiB, find(first, 'crawlee')?.median?.maxRssMiB),
    rssVsSitemapper: ratio(ours?.maxRssMiB, find(first, 'sitemapper')?.median?.maxRssMiB),
    throughputVsScanner: ratio(ours?.urlsPerSec, find(first, 'scanner')?.median?.urlsPerSec),
    rssGrowth,
  };
}

function verdict(measured: number | null, ok: (value: number) => boolean): boolean | null {
  return measured === null ? null : ok(measured);
}

/** The issue's three targets plus agreement on the URL count. */
export function evaluateTargets(scenarios: ScenarioReport[], ratios: Ratios): Target[] {
  const ourRss = scenarios.flatMap((s) => find(s, 'engine')?.median?.maxRssMiB ?? []);
  const peak = ourRss.length ? Math.max(...ourRss) : null;
  const growth = ratios.rssGrowth.engine ?? null;
  const disagreeing = scenarios.flatMap((s) => s.contenders.filter((c) => c.agrees === false)).length;
  return [
    { name: 'throughput vs crawlee', measured: ratios.throughputVsCrawlee, goal: '>= 6x', met: verdict(ratios.throughputVsCrawlee, (v) => v >= 6) },
    { name: 'engine peak RSS (MiB, any tree)', measured: peak, goal: '<= 160', met: verdict(peak, (v) => v <= 160) },
    { name: 'engine RSS largest / smallest tree', measured: growth, goal: '<= 1.15', met: verdict(growth, (v) => v <= 1.15) },
    { name: 'contenders disagreeing on URL count', measured: disagreeing, goal: '0', met: disagreeing === 0 },
  ];
}

const fmt = (value: number | null | undefined, digits = 0): string =>
  value === null || value === undefined ? 'n/a' : value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

// The median hides a bad run, so every run that found another count is named, with the errors of all runs.
function row(scenario: ScenarioReport, c: ContenderSummary): string {
  const m = c.median;
  const good = c.runs.flatMap((r) => (r.ok ? [r.result] : []));
  const wrong = good.filter((r) => r.urls !== scenario.expectedUrls).map((r) => fmt(r.urls));
  const mismatch = wrong.length ? ` (MISMATCH in ${wrong.length}/${good.length} runs: ${wrong.join(', ')}; the tree has ${fmt(scenario.expectedUrls)})` : '';
  const found = m ? `${fmt(m.urls)}${mismatch}` : c.status;
  const errors = good.reduce((sum, r) => sum + r.errors, 0);
  const runs = `${good.length}/${c.runs.length}${c.reason ? ` (${c.reason.slice(0, 80)})` : ''}`;
  return `| ${scenario.name} | ${c.name} | ${found} | ${m ? errors : 'n/a'} | ${fmt(m && m.walkMs / 1000, 2)} | ${fmt(m?.urlsPerSec)} | ${fmt(m?.mbPerSec, 1)} | ${fmt(m?.maxRssMiB)} | ${runs} |`;
}

// " (rounds: 6.67x, 6.32x, 7.61x)" when there is more than one round to show.
function rounds(values: number[]): string {
  return values.length > 1 ? ` (rounds: ${values.map((v) => `${v.toFixed(2)}x`).join(', ')})` : '';
}

/** The results as markdown: one table of medians, the ratios, the targets. */
export function markdown(scenarios: ScenarioReport[], ratios: Ratios, targets: Target[]): string {
  const x = (v: number | null) => (v === null ? 'n/a' : `${v.toFixed(2)}x`);
  const lines = [
    '| tree | contender | URLs found (median) | errors (all runs) | wall (s) | URLs/s | MB/s (XML) | peak RSS (MiB) | runs ok |',
    '|---|---|---:|---:|---:|---:|---:|---:|---|',
    ...scenarios.flatMap((s) => s.contenders.map((c) => row(s, c))),
    '',
    `Ratios (${scenarios[0]?.name ?? '-'} tree): throughput vs crawlee ${x(ratios.throughputVsCrawlee)}${rounds(ratios.throughputVsCrawleeByRound)}, vs sitemapper ${x(ratios.throughputVsSitemapper)}; ` +
      `peak RSS vs crawlee ${x(ratios.rssVsCrawlee)}, vs sitemapper ${x(ratios.rssVsSitemapper)}; ` +
      `throughput vs the hand scanner (the practical limit) ${x(ratios.throughputVsScanner)}.`,
    `RSS growth, largest tree over smallest: ${
      Object.entries(ratios.rssGrowth)
        .map(([k, v]) => `${k} ${x(v)}`)
        .join(', ') || 'n/a'
    }.`,
    '',
    '| target | measured | goal | met |',
    '|---|---:|---|---|',
    ...targets.map((t) => `| ${t.name} | ${fmt(t.measured, 2)} | ${t.goal} | ${t.met === null ? 'n/a' : t.met ? 'yes' : 'NO'} |`),
  ];
  return `${lines.join('\n')}\n`;
}

/** Where and on what the numbers were measured. */
export function machine(): Record<string, string | number> {
  return {
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    totalMemMiB: Math.round(totalmem() / 2 ** 20),
  };
}
