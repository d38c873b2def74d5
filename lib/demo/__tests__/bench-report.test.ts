import { describe, expect, it } from 'vitest';
import { readConfig } from '../../../bench/harness/config.js';
import { median, type ContenderSummary, type ScenarioReport } from '../../../bench/harness/measure.js';
import { computeRatios, evaluateTargets, markdown } from '../../../bench/harness/report.js';

function summary(name: ContenderSummary['name'], urls: number, urlsPerSec: number, maxRssMiB: number, expected: number): ContenderSummary {
  const result = { urls, errors: 0, walkMs: (urls / urlsPerSec) * 1000, maxRssKiB: maxRssMiB * 1024 };
  return {
    name,
    status: 'ok',
    reason: null,
    runs: [{ ok: true, result, processMs: 0, notes: '' }],
    median: { urls, walkMs: result.walkMs, urlsPerSec, mbPerSec: (urlsPerSec * 220) / 1e6, errors: 0, maxRssMiB, processMs: 0 },
    agrees: urls === expected,
  };
}

function scenario(name: string, expectedUrls: number, contenders: ContenderSummary[]): ScenarioReport {
  return { name, children: 1, perChild: expectedUrls, expectedUrls, cachedChildren: 1, xmlBytes: expectedUrls * 220, contenders };
}

describe('benchmark report', () => {
  const small = scenario('1M', 1_000_000, [
    summary('engine', 1_000_000, 600_000, 120, 1_000_000),
    summary('crawlee', 1_000_000, 100_000, 165, 1_000_000),
    summary('sitemapper', 999_000, 75_000, 720, 1_000_000),
    summary('scanner', 1_000_000, 1_200_000, 90, 1_000_000),
  ]);
  const large = scenario('5M', 5_000_000, [summary('engine', 5_000_000, 600_000, 132, 5_000_000)]);

  it('takes the middle run as the median', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });

  it('computes throughput and memory ratios against each peer and RSS growth across trees', () => {
    const ratios = computeRatios([small, large]);
    expect(ratios.throughputVsCrawlee).toBe(6);
    expect(ratios.throughputVsSitemapper).toBe(8);
    expect(ratios.throughputVsScanner).toBe(0.5);
    expect(ratios.rssVsCrawlee).toBeCloseTo(120 / 165);
    expect(ratios.rssGrowth.engine).toBeCloseTo(1.1);
  });

  it('gives the crawlee ratio round by round too, leaving out a round where either side failed', () => {
    const runs = (walkMs: Array<number | null>): ContenderSummary['runs'] =>
      walkMs.map((ms) =>
        ms === null
          ? { ok: false, error: 'exit code 1' }
          : { ok: true, result: { urls: 1_000_000, errors: 0, walkMs: ms, maxRssKiB: 0 }, processMs: ms, notes: '' },
      );
    const tree = scenario('1M', 1_000_000, [
      { ...summary('engine', 1_000_000, 600_000, 120, 1_000_000), runs: runs([2_000, 1_500, 1_000]) },
      { ...summary('crawlee', 1_000_000, 100_000, 165, 1_000_000), runs: runs([12_000, null, 9_000]) },
    ]);
    const ratios = computeRatios([tree]);
    expect(ratios.throughputVsCrawleeByRound).toEqual([6, 9]);
    expect(markdown([tree], ratios, evaluateTargets([tree], ratios))).toContain('throughput vs crawlee 6.00x (rounds: 6.00x, 9.00x)');
  });

  it('reports a peer that finds a different number of URLs instead of hiding it', () => {
    const ratios = computeRatios([small, large]);
    const targets = evaluateTargets([small, large], ratios);
    expect(targets.find((t) => t.name.includes('disagreeing'))).toMatchObject({ measured: 1, met: false });
    expect(markdown([small, large], ratios, targets)).toContain('999,000 (MISMATCH in 1/1 runs: 999,000; the tree has 1,000,000)');
  });

  it('judges the three targets of the issue', () => {
    const targets = evaluateTargets([small, large], computeRatios([small, large]));
    expect(targets.slice(0, 3).map((t) => t.met)).toEqual([true, true, true]);
  });

  it('reads --quick, --only, --runs, --out and --wire', () => {
    const config = readConfig(['--quick', '--only', 'engine', '--runs', '2']);
    expect(config.scenarios.every((s) => s.contenders.join() === 'engine' && s.runs === 2)).toBe(true);
    expect(() => readConfig(['--only', 'nobody'])).toThrow(/unknown contender/);
    expect(readConfig(['--out', '.tmp/run.json']).out).toBe('.tmp/run.json');
    expect(readConfig(['--wire', 'plain', '--trees', '5M']).scenarios.map((s) => [s.name, s.wire])).toEqual([['5M plain', 'plain']]);
    expect(readConfig(['--wire', 'half-plain', '--trees', '1M']).scenarios.map((s) => s.name)).toEqual(['1M half-plain']);
    expect(() => readConfig(['--wire', 'brotli'])).toThrow(/--wire must be one of mixed, half-plain, plain, gzip: brotli/);
  });
});
