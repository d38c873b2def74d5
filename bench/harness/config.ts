import { parseArgs } from 'node:util';

/** The walkers compared. */
export const CONTENDERS = ['engine', 'crawlee', 'sitemapper', 'scanner'] as const;
/** One of the contenders. */
export type ContenderName = (typeof CONTENDERS)[number];

/** One tree size and who walks it, how many times. */
export interface Scenario {
  name: string;
  children: number;
  perChild: number;
  contenders: ContenderName[];
  runs: number;
  /** Fewer runs for a slow contender, so a full bench stays near ten minutes on two cores. */
  runsOf?: Partial<Record<ContenderName, number>>;
}

/** How many times `name` walks the scenario's tree. */
export function runsFor(scenario: Scenario, name: ContenderName): number {
  return Math.min(scenario.runs, scenario.runsOf?.[name] ?? scenario.runs);
}

/** Everything a bench run does, decided from the command line. */
export interface BenchConfig {
  quick: boolean;
  /** Write the results over the tracked bench/results/ files (otherwise to .tmp/bench/, ignored by git). */
  save: boolean;
  scenarios: Scenario[];
  /** A contender run taking longer is killed and reported as failed. */
  timeoutMs: number;
  /** Where the JSON of the run goes, relative to the project; default .tmp/bench/latest.json (quick.json for --quick), bench/results/ with --save. */
  out: string | null;
  /** Children of the many-small-sitemaps index (walk and Redis job), or null when `--only` leaves it out. */
  manySitemaps: number | null;
}

/** The per-sitemap overhead run's name for `--only`. */
export const MANY_SITEMAPS = 'many-sitemaps';

const FULL: Scenario[] = [
  { name: '1M', children: 20, perChild: 50_000, contenders: ['engine', 'crawlee', 'sitemapper', 'scanner'], runs: 3 },
  // sitemapper keeps every URL in one array (about 720 MiB at 1M): at 5M it shows nothing new, slowly.
  // crawlee walks 5M once (over a minute a run): enough to show whether its memory grows.
  { name: '5M', children: 100, perChild: 50_000, contenders: ['engine', 'crawlee', 'scanner'], runs: 3, runsOf: { crawlee: 1, scanner: 1 } },
];

// Same shapes at a tenth of the size: a smoke test of the whole harness in well under a minute.
const QUICK: Scenario[] = [
  { name: '100k', children: 4, perChild: 25_000, contenders: ['engine', 'crawlee', 'sitemapper', 'scanner'], runs: 1 },
  { name: '500k', children: 20, perChild: 25_000, contenders: ['engine', 'crawlee'], runs: 1 },
];

function parseOnly(only: string | undefined): { contenders: ContenderName[]; manySitemaps: boolean } | null {
  if (!only) return null;
  const names = only.split(',').map((name) => name.trim());
  const unknown = names.filter((name) => name !== MANY_SITEMAPS && !(CONTENDERS as readonly string[]).includes(name));
  if (unknown.length > 0) throw new Error(`unknown contender(s): ${unknown.join(', ')} (known: ${[...CONTENDERS, MANY_SITEMAPS].join(', ')})`);
  return { contenders: names.filter((name) => name !== MANY_SITEMAPS) as ContenderName[], manySitemaps: names.includes(MANY_SITEMAPS) };
}

/** Reads `--quick`, `--only engine[,crawlee][,many-sitemaps]`, `--runs N` and `--out FILE` (default .tmp/bench/) and `--save` (rewrites bench/results/). */
export function readConfig(argv: string[]): BenchConfig {
  const { values } = parseArgs({ args: argv, options: { quick: { type: 'boolean' }, only: { type: 'string' }, runs: { type: 'string' }, out: { type: 'string' }, save: { type: 'boolean' } } });
  const quick = values.quick ?? false;
  const only = parseOnly(values.only);
  const runs = values.runs === undefined ? null : Number(values.runs);
  if (runs !== null && !(Number.isInteger(runs) && runs > 0)) throw new Error(`--runs must be a positive integer: ${values.runs}`);
  const scenarios = (quick ? QUICK : FULL)
    .map((s) => ({ ...s, runs: runs ?? s.runs, contenders: s.contenders.filter((c) => only === null || only.contenders.includes(c)) }))
    .filter((s) => s.contenders.length > 0);
  const manySitemaps = only === null || only.manySitemaps ? (quick ? 10_000 : 50_000) : null;
  return { quick, save: values.save ?? false, scenarios, timeoutMs: 5 * 60_000, out: values.out ?? null, manySitemaps };
}
