import type { BuiltContender } from './build.js';
import { runsFor, type BenchConfig, type ContenderName, type Scenario } from './config.js';
import { runContender, startTreeProcess, type RunOutcome } from './processes.js';

/** Medians over a contender's successful runs. */
export interface Medians {
  urls: number;
  walkMs: number;
  urlsPerSec: number;
  /** Uncompressed XML read per second (the tree's bytes over walkMs), in MB (10^6 bytes). */
  mbPerSec: number;
  errors: number;
  maxRssMiB: number;
  processMs: number;
}

/** One contender in one scenario: every run, the medians, and whether it found every URL. */
export interface ContenderSummary {
  name: ContenderName;
  status: 'ok' | 'failed' | 'unavailable';
  reason: string | null;
  runs: RunOutcome[];
  median: Medians | null;
  /** Every successful run found exactly the tree's URLs; false is reported, never hidden. */
  agrees: boolean | null;
}

/** A scenario's results. */
export interface ScenarioReport {
  name: string;
  children: number;
  perChild: number;
  expectedUrls: number;
  cachedChildren: number;
  xmlBytes: number;
  contenders: ContenderSummary[];
}

/** Middle value (mean of the two middle ones for an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

function summarise(name: ContenderName, runs: RunOutcome[], expectedUrls: number, xmlBytes: number): ContenderSummary {
  const good = runs.flatMap((run) => (run.ok ? [run] : []));
  const failed = runs.find((run): run is Extract<RunOutcome, { ok: false }> => !run.ok);
  if (good.length === 0) return { name, status: 'failed', reason: failed?.error ?? 'no run', runs, median: null, agrees: null };
  const of = (pick: (run: (typeof good)[number]) => number) => median(good.map(pick));
  const medians: Medians = {
    urls: of((r) => r.result.urls),
    walkMs: of((r) => r.result.walkMs),
    errors: of((r) => r.result.errors),
    urlsPerSec: of((r) => r.result.urls / (r.result.walkMs / 1000)),
    mbPerSec: of((r) => xmlBytes / 1e6 / (r.result.walkMs / 1000)),
    maxRssMiB: of((r) => r.result.maxRssKiB / 1024),
    processMs: of((r) => r.processMs),
  };
  return { name, status: 'ok', reason: failed?.error ?? null, runs, median: medians, agrees: good.every((r) => r.result.urls === expectedUrls) };
}

function progress(scenario: Scenario, name: ContenderName, run: number, outcome: RunOutcome): void {
  const { ok } = outcome;
  const what = ok
    ? `${outcome.result.urls} URLs in ${(outcome.result.walkMs / 1000).toFixed(2)} s, ${(outcome.result.maxRssKiB / 1024).toFixed(0)} MiB, ${outcome.result.errors} errors${outcome.result.errors ? ` (${outcome.notes.slice(0, 300)})` : ''}`
    : `FAILED ${outcome.error}`;
  process.stderr.write(`[bench] ${scenario.name} ${name} run ${run + 1}/${runsFor(scenario, name)}: ${what}\n`);
}

type Builds = Map<ContenderName, BuiltContender>;

const runnable = (builds: Builds, name: ContenderName): string | null => {
  const built = builds.get(name);
  return built && 'file' in built ? built.file : null;
};

// Contenders take turns run by run, so load from elsewhere on the machine hits all of them alike.
async function runRounds(scenario: Scenario, builds: Builds, indexUrl: string, timeoutMs: number): Promise<Map<ContenderName, RunOutcome[]>> {
  const runs = new Map<ContenderName, RunOutcome[]>(scenario.contenders.map((name) => [name, []]));
  for (let run = 0; run < scenario.runs; run += 1) {
    for (const name of scenario.contenders) {
      const file = runnable(builds, name);
      if (file === null || run >= runsFor(scenario, name)) continue;
      const outcome = await runContender(file, indexUrl, timeoutMs);
      progress(scenario, name, run, outcome);
      runs.get(name)?.push(outcome);
    }
  }
  return runs;
}

function unavailable(name: ContenderName, built: BuiltContender | undefined): ContenderSummary {
  return { name, status: 'unavailable', reason: built && 'error' in built ? built.error : 'not built', runs: [], median: null, agrees: null };
}

/** Serves the scenario's tree from its own process and has every contender walk it, each run in a fresh process. */
export async function runScenario(root: string, scenario: Scenario, builds: Builds, config: BenchConfig): Promise<ScenarioReport> {
  process.stderr.write(`[bench] ${scenario.name}: warming a tree of ${scenario.children} x ${scenario.perChild} URLs\n`);
  const tree = await startTreeProcess(root, scenario);
  const runs = await runRounds(scenario, builds, tree.ready.indexUrl, config.timeoutMs).finally(() => tree.stop());
  const contenders = scenario.contenders.map((name) =>
    runnable(builds, name) === null ? unavailable(name, builds.get(name)) : summarise(name, runs.get(name) ?? [], tree.ready.expectedUrls, tree.ready.xmlBytes),
  );
  const { name, children, perChild } = scenario;
  const { expectedUrls, cachedChildren, xmlBytes } = tree.ready;
  return { name, children, perChild, expectedUrls, cachedChildren, xmlBytes, contenders };
}
