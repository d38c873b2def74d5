// `npm run bench`: serves a deterministic sitemap tree from its own process and walks it with this
// engine and two peers, each run in its own plain-node process. See bench/README.md.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildContender, type BuiltContender } from './harness/build.js';
import { readConfig, type ContenderName } from './harness/config.js';
import { cliFormatsMarkdown, runCliFormats, type CliFormatsReport } from './harness/cli-formats.js';
import { manySitemapsMarkdown, runManySitemaps } from './harness/many-sitemaps.js';
import { runScenario, type ScenarioReport } from './harness/measure.js';
import { computeRatios, evaluateTargets, machine, markdown } from './harness/report.js';
import { resyncMarkdown, runResyncBench, type ResyncReport } from './resync/run.js';
import { runWideIndex, wideIndexMarkdown } from './harness/wide-index.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const config = readConfig(process.argv.slice(2));
const wanted = [...new Set([...config.scenarios.flatMap((s) => s.contenders), ...(config.cli === null ? [] : (['crawlee'] as const))])];

const builds = new Map<ContenderName, BuiltContender>();
for (const name of wanted) {
  const built = await buildContender(root, name);
  if ('error' in built) process.stderr.write(`[bench] ${name} unavailable: ${built.error}\n`);
  builds.set(name, built);
}

const scenarios: ScenarioReport[] = [];
for (const scenario of config.scenarios) scenarios.push(await runScenario(root, scenario, builds, config));

const manySitemaps = config.manySitemaps === null ? [] : await runManySitemaps(root, config.manySitemaps);
const resync: ResyncReport | null = config.resync === null ? null : await runResyncBench(root, config.resync);
const cli: CliFormatsReport | null = config.cli === null ? null : await runCliFormats(root, config.cli, builds.get('crawlee'), config.timeoutMs);
const wideIndex = config.wideIndex === null ? [] : await runWideIndex(root, config.wideIndex);

const ratios = computeRatios(scenarios);
const targets = evaluateTargets(scenarios, ratios);
if (scenarios.length > 0) process.stdout.write(markdown(scenarios, ratios, targets));
if (manySitemaps.length > 0) process.stdout.write(manySitemapsMarkdown(manySitemaps));
if (resync !== null) process.stdout.write(resyncMarkdown(resync));
if (cli !== null) process.stdout.write(cliFormatsMarkdown(cli));
if (wideIndex.length > 0) process.stdout.write(wideIndexMarkdown(wideIndex));
// Only --save rewrites the tracked results; an ordinary run writes beside them in .tmp/ (git-ignored), or to --out.
const saved = join(root, ...(config.save ? ['bench', 'results'] : ['.tmp', 'bench']), config.quick ? 'quick.json' : 'latest.json');
const out = config.out === null ? saved : resolve(root, config.out);
await mkdir(dirname(out), { recursive: true });
await writeFile(
  out,
  `${JSON.stringify({ generatedAt: new Date().toISOString(), machine: machine(), config, scenarios, ratios, targets, manySitemaps, resync, cli, wideIndex }, null, 2)}\n`,
);
process.stderr.write(`[bench] wrote ${out}\n`);
