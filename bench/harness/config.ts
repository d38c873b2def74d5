import { parseArgs } from 'node:util';
import { benchWireOf, type BenchWire } from '../../test/sites/bench-tree.js';
import type { ResyncShape } from '../resync/run.js';

/** The walkers compared. */
export const CONTENDERS = ['engine', 'crawlee', 'sitemapper', 'scanner'] as const;
/** One of the contenders. */
export type ContenderName = (typeof CONTENDERS)[number];

/** One tree size and who walks it, how many times. */
export interface Scenario {
  name: string;
  children: number;
  perChild: number;
  /** How the tree's children travel (`--wire`); the name says so when it is not the benchmark's mixed tree. */
  wire: BenchWire;
  /** One loc in ten carries `&amp;` (`--amp`; issue 18's acceptance tree); the name says so. */
  amp?: boolean;
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
  /** The incremental re-sync measurement (`--only resync` runs it alone), or null when left out. */
  resync: ResyncShape | null;
  /** Children of the many-small-sitemaps index (walk and Redis job), or null when `--only` leaves it out. */
  manySitemaps: number | null;
  /** Children of each wide index read by the built bin (`--only wide-index` only: it needs `npm run build`), or null. */
  wideIndex: number[] | null;
  /** The CLI section (the built bin per format against crawlee, on the `&amp;` tree), or null when left out. */
  cli: Scenario | null;
}

/** The per-sitemap overhead run's name for `--only`. */
export const MANY_SITEMAPS = 'many-sitemaps';
/** The CLI section's name for `--only`. */
export const CLI = 'cli';

// Issue 18's acceptance tree: 1M URLs in 20 children (10 plain, 5 `.xml.gz`, 5 Content-Encoding gzip), one loc in ten
// with `&amp;`; 3 rounds of crawlee and the four formats.
const CLI_FULL: Scenario = { name: '1M amp half-plain', children: 20, perChild: 50_000, wire: 'half-plain', amp: true, contenders: [], runs: 3 };
const CLI_QUICK: Scenario = { name: '100k amp half-plain', children: 4, perChild: 25_000, wire: 'half-plain', amp: true, contenders: [], runs: 1 };

const FULL: Scenario[] = [
  { name: '1M', children: 20, perChild: 50_000, wire: 'mixed', contenders: ['engine', 'crawlee', 'sitemapper', 'scanner'], runs: 3 },
  // sitemapper keeps every URL in one array (about 720 MiB at 1M): at 5M it shows nothing new, slowly.
  // crawlee walks 5M once (over a minute a run): enough to show whether its memory grows.
  { name: '5M', children: 100, perChild: 50_000, wire: 'mixed', contenders: ['engine', 'crawlee', 'scanner'], runs: 3, runsOf: { crawlee: 1, scanner: 1 } },
];

// Same shapes at a tenth of the size: a smoke test of the whole harness in well under a minute.
const QUICK: Scenario[] = [
  { name: '100k', children: 4, perChild: 25_000, wire: 'mixed', contenders: ['engine', 'crawlee', 'sitemapper', 'scanner'], runs: 1 },
  { name: '500k', children: 20, perChild: 25_000, wire: 'mixed', contenders: ['engine', 'crawlee'], runs: 1 },
];

// The 1M tree in 200 children of 5,000 (the same entries and encodings as the 1M scenario's), so 1% is 2 children.
const RESYNC_FULL: ResyncShape = { name: '1M', children: 200, perChild: 5_000, changed: 2 };
const RESYNC_QUICK: ResyncShape = { name: '100k', children: 100, perChild: 1_000, changed: 1 };

/** `--only` besides the contenders: the re-sync measurement. */
const RESYNC = 'resync';
/** `--only wide-index`: indexes past maxChildrenPerIndex, read by the built bin (bench/wide-index.ts). */
export const WIDE_INDEX = 'wide-index';

/** What `--only` asks for: contenders, and the measurements that are not contenders. */
interface Only {
  contenders: ContenderName[];
  manySitemaps: boolean;
  resync: boolean;
  wideIndex: boolean;
  cli: boolean;
}

function parseOnly(only: string | undefined): Only | null {
  if (!only) return null;
  const names = only.split(',').map((name) => name.trim());
  const known: string[] = [...CONTENDERS, MANY_SITEMAPS, RESYNC, WIDE_INDEX, CLI];
  const unknown = names.filter((name) => !known.includes(name));
  if (unknown.length > 0) throw new Error(`unknown contender(s): ${unknown.join(', ')} (known: ${known.join(', ')})`);
  const contenders = names.filter((name): name is ContenderName => (CONTENDERS as readonly string[]).includes(name));
  return {
    contenders,
    manySitemaps: names.includes(MANY_SITEMAPS),
    resync: names.includes(RESYNC),
    wideIndex: names.includes(WIDE_INDEX),
    cli: names.includes(CLI),
  };
}

// `--trees 1M[,5M]`: only these trees (by name); null is every tree of the mode.
function parseTrees(trees: string | undefined, scenarios: Scenario[]): Set<string> | null {
  if (!trees) return null;
  const names = trees.split(',').map((name) => name.trim());
  const unknown = names.filter((name) => !scenarios.some((scenario) => scenario.name === name));
  if (unknown.length > 0) throw new Error(`unknown tree(s): ${unknown.join(', ')} (known: ${scenarios.map((scenario) => scenario.name).join(', ')})`);
  return new Set(names);
}

/**
 * Reads `--quick`, `--only engine[,crawlee][,many-sitemaps][,resync][,cli][,wide-index]`, `--trees 1M[,5M]`, `--wire mixed|half-plain|plain|gzip`, `--amp`,
 * `--runs N` and `--out FILE` (default .tmp/bench/) and `--save` (rewrites bench/results/).
 */
export function readConfig(argv: string[]): BenchConfig {
  const options = {
    quick: { type: 'boolean' },
    only: { type: 'string' },
    trees: { type: 'string' },
    runs: { type: 'string' },
    out: { type: 'string' },
    save: { type: 'boolean' },
    wire: { type: 'string' },
    amp: { type: 'boolean' },
  } as const;
  const { values } = parseArgs({ args: argv, options });
  const quick = values.quick ?? false;
  const only = parseOnly(values.only);
  const runs = values.runs === undefined ? null : Number(values.runs);
  if (runs !== null && !(Number.isInteger(runs) && runs > 0)) throw new Error(`--runs must be a positive integer: ${values.runs}`);
  const trees = parseTrees(values.trees, quick ? QUICK : FULL);
  const wire = benchWireOf(values.wire);
  const amp = values.amp ?? false;
  const suffix = `${wire === 'mixed' ? '' : ` ${wire}`}${amp ? ' amp' : ''}`;
  const scenarios = (quick ? QUICK : FULL)
    .filter((s) => trees === null || trees.has(s.name))
    .map((s) => ({
      ...s,
      name: `${s.name}${suffix}`,
      wire,
      amp,
      runs: runs ?? s.runs,
      contenders: s.contenders.filter((c) => only === null || only.contenders.includes(c)),
    }))
    .filter((s) => s.contenders.length > 0);
  const manySitemaps = only === null || only.manySitemaps ? (quick ? 10_000 : 50_000) : null;
  const resync = only === null || only.resync ? (quick ? RESYNC_QUICK : RESYNC_FULL) : null;
  // Only when named: it measures the built bin, which an ordinary bench run does not build.
  const wideIndex = only?.wideIndex === true ? (quick ? [60_000] : [50_000, 60_000, 1_000_000]) : null;
  const cliBase = quick ? CLI_QUICK : CLI_FULL;
  // The CLI section keeps the acceptance tree's wire unless `--wire` names another.
  const cliWire = values.wire === undefined ? cliBase.wire : wire;
  const cliName = cliWire === cliBase.wire ? cliBase.name : cliBase.name.replace(cliBase.wire, cliWire);
  const cli = only === null || only.cli ? { ...cliBase, name: cliName, wire: cliWire, runs: runs ?? cliBase.runs } : null;
  return { quick, save: values.save ?? false, scenarios, timeoutMs: 5 * 60_000, out: values.out ?? null, manySitemaps, resync, cli, wideIndex };
}
