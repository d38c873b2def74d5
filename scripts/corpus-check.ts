// Optional end-to-end check of the engine against the real-world sitemap corpus (see the corpus README).
// Not part of `npm test`: the corpus lives outside the project and is never copied into it. Each site is served
// from `sites/<id>/` on 127.0.0.1 with its origin rewritten to the server's in every body (inside gzip too),
// walked from each manifest root, discovered from its robots.txt folder when it has one, and compared with
// oracle.json, whose `total_distinct_page_urls` counts distinct locs (urlset locs, text lines, feed links; no
// hreflang alternates). Only the site's own origin is served: sitemaps on other hosts fail like any unreachable
// one (offline, DNS fails; with network they are real requests to those hosts).
//
//   node bin/run-ts.mjs scripts/corpus-check.ts [--corpus ../shared/corpus] [--site ID]
//
// stdout: findings per site, a table (site, expected, found, urls+alt, errors, verdict) and a last line
// `N sites agree, M differ (explained: ...)`. Exit 0 when it ran (a report, not a gate), 2 on a usage error.
import { readFile } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { gunzipSync, gzipSync } from 'node:zlib';
import { z } from 'zod';
import { startLoopbackServer, type LoopbackServer } from '../lib/demo/loopback-server.js';
import { isFactoryError } from '../lib/core/errors.js';
import { closeAgents } from '../lib/factory/fetch/index.js';
import { DEFAULT_LIMITS, type WalkOptionsInput } from '../lib/core/limits.js';
import { parseSitemapBytes } from '../lib/factory/parse/index.js';
import { discoverSitemaps, isSiteRoot, walkSitemapEvents, walkUrlEvents, type WalkEvent } from '../lib/factory/sitemap.js';
import { sendLogsTo, setLogLevel } from '../lib/utils/logger.js';

const USAGE = 'usage: node bin/run-ts.mjs scripts/corpus-check.ts [--corpus DIR] [--site ID]\n';
/** The shared corpus next to the project, never inside it. */
const DEFAULT_CORPUS = fileURLToPath(new URL('../../shared/corpus/', import.meta.url));
/** What a static host would send; the engine sniffs the bytes anyway, this only keeps the serving realistic. */
const CONTENT_TYPES: Readonly<Record<string, string>> = {
  xml: 'application/xml',
  gz: 'application/gzip',
  txt: 'text/plain',
  htm: 'text/html',
  html: 'text/html',
};

// Only the fields this check reads; zod drops the rest.
const ManifestSchema = z.array(
  z.object({
    id: z.string(),
    origin: z.string().nullable(),
    roots: z.array(z.string()),
    files: z.array(z.object({ path: z.string(), kind: z.string() })),
  }),
);
const OracleFileSchema = z.object({
  status: z.string(),
  parse_error: z.string().optional(),
  type: z.string().optional(),
  root: z.string().optional(),
  url_entries: z.number().optional(),
  sitemap_entries: z.number().optional(),
  lines: z.number().optional(),
  feed_links: z.number().optional(),
});
const OracleSiteSchema = z.object({
  total_distinct_page_urls: z.number().int().nonnegative(),
  visited_files: z.array(z.string()),
  missing_children: z.array(z.object({ from: z.string(), child: z.string() })),
});
const OracleSchema = z.object({
  files: z.record(z.string(), z.record(z.string(), OracleFileSchema)),
  sites: z.record(z.string(), OracleSiteSchema),
});

type Site = z.infer<typeof ManifestSchema>[number];
type OracleFile = z.infer<typeof OracleFileSchema>;
type SitemapEvent = Extract<WalkEvent<unknown>, { type: 'sitemap' }>;

/** The corpus as read: where it is, its sites and the oracle's figures. */
interface Corpus {
  dir: string;
  sites: Site[];
  oracle: z.infer<typeof OracleSchema>;
}

/** A failure as the report lists it. */
interface Failure {
  kind: string;
  url: string;
  message: string;
}

/** What walks found: locs per sitemap (to count broken files apart), walkSitemap's URLs, sitemaps read, failures. */
interface Outcome {
  locsBySource: Map<string, Set<string>>;
  urls: Set<string>;
  sitemaps: Map<string, SitemapEvent>;
  failures: Failure[];
}

/** One site being checked: its manifest entry, oracle figures, server and what the walks from its roots found. */
interface SiteRun {
  site: Site;
  files: Record<string, OracleFile>;
  oracle: z.infer<typeof OracleSiteSchema>;
  server: LoopbackServer;
  bodies: Map<string, Buffer>;
  options: WalkOptionsInput;
  roots: Outcome;
}

/** A disagreement with the oracle: explained (a cause the engine reports or documents) or not. */
interface Difference {
  cause: string | null;
  text: string;
}

/** One line of the table plus the findings printed above it. */
interface SiteReport {
  id: string;
  expected: number;
  found: number;
  urls: number;
  failures: Failure[];
  notes: string[];
  differences: Difference[];
}

/** Thrown for a command line or corpus this script cannot use: exit 2. */
class UsageError extends Error {
  override name = 'UsageError' as const;
}

/** Reads and validates manifest.json and oracle.json; a missing or malformed corpus is a usage error. */
async function loadCorpus(dir: string): Promise<Corpus> {
  const read = async (name: string): Promise<unknown> => JSON.parse(await readFile(join(dir, name), 'utf8'));
  try {
    return { dir, sites: ManifestSchema.parse(await read('manifest.json')), oracle: OracleSchema.parse(await read('oracle.json')) };
  } catch (error) {
    throw new UsageError(`cannot read the corpus at ${dir}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * The body as served: the site's origin replaced by the server's. Done on latin1 text, which maps each byte to one
 * character and back, so no other byte changes whatever the file's encoding; gzip files are rewritten inside.
 */
function rewriteBody(raw: Buffer, origin: string | null, serverOrigin: string): Buffer {
  // A null origin (root-relative originalUrls) has nothing to rewrite: its locs resolve against the server anyway.
  if (origin === null) return raw;
  const gzipped = raw[0] === 0x1f && raw[1] === 0x8b;
  const text = (gzipped ? gunzipSync(raw) : raw).toString('latin1').replaceAll(origin, serverOrigin);
  const plain = Buffer.from(text, 'latin1');
  return gzipped ? gzipSync(plain) : plain;
}

/** The corpus path a URL path names (`/zh/sitemap.xml` -> `zh/sitemap.xml`), or null when it does not decode. */
function corpusPath(url: string, server: LoopbackServer): string | null {
  const parsed = new URL(url, server.origin);
  if (parsed.origin !== server.origin) return null;
  try {
    return decodeURIComponent(parsed.pathname).slice(1);
  } catch {
    return null;
  }
}

/** Serves the site's files (origin rewritten) at their own paths, sub-path included; anything else is a 404. */
async function serveSite(dir: string, site: Site): Promise<{ server: LoopbackServer; bodies: Map<string, Buffer> }> {
  const bodies = new Map<string, Buffer>();
  const server = await startLoopbackServer((request) => {
    const path = corpusPath(request.url ?? '/', server);
    const body = path === null ? undefined : bodies.get(path);
    if (path === null || body === undefined) return null;
    return { headers: { 'content-type': CONTENT_TYPES[posix.extname(path).slice(1)] ?? 'application/octet-stream' }, body };
  });
  for (const file of site.files) {
    const raw = await readIfPresent(join(dir, 'sites', site.id, file.path));
    if (raw !== null) bodies.set(file.path, rewriteBody(raw, site.origin, server.origin));
  }
  return { server, bodies };
}

/** A file's bytes, or null when it is not on disk: it is then served as a 404 and the report says what that changed. */
async function readIfPresent(path: string): Promise<Buffer | null> {
  try {
    return await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** An outcome with nothing in it yet. */
function emptyOutcome(): Outcome {
  return { locsBySource: new Map(), urls: new Set(), sitemaps: new Map(), failures: [] };
}

/** A thrown FactoryError as a failure record; anything else is a bug in this script or the engine and goes on up. */
function asFailure(error: unknown): Failure {
  if (!isFactoryError(error)) throw error;
  return { kind: error.kind, url: error.url ?? '', message: error.message };
}

/** Runs a walk to its end; a walk whose roots all failed before anything was found throws, and that is a failure too. */
async function drain<T>(events: AsyncGenerator<WalkEvent<T>>, failures: Failure[], onEvent: (event: WalkEvent<T>) => void): Promise<void> {
  try {
    for await (const event of events) onEvent(event);
  } catch (error) {
    failures.push(asFailure(error));
  }
}

/** Walks from one URL twice: rich entries (locs, sitemaps, failures), then walkSitemap's URLs (alternates added). */
async function walkFrom(url: string, options: WalkOptionsInput, into: Outcome): Promise<void> {
  await drain(walkSitemapEvents(url, options), into.failures, (event) => {
    if (event.type === 'batch') for (const entry of event.items) addLoc(into, entry.source, entry.loc);
    else if (event.type === 'sitemap') into.sitemaps.set(event.url, event);
    else if (event.type === 'error') into.failures.push({ kind: event.kind, url: event.url ?? '', message: event.message });
  });
  // The same walk over URLs fails the same way: only its URLs are kept.
  await drain(walkUrlEvents(url, options), [], (event) => {
    if (event.type === 'batch') for (const item of event.items) into.urls.add(item);
  });
}

/** Records a loc under the sitemap it came from. */
function addLoc(outcome: Outcome, source: string, loc: string): void {
  const locs = outcome.locsBySource.get(source) ?? new Set<string>();
  outcome.locsBySource.set(source, locs.add(loc));
}

/** Distinct locs of an outcome, leaving out those read from the `skip` sitemaps. */
function locsOf(outcome: Outcome, skip: ReadonlySet<string> = new Set()): Set<string> {
  const all = new Set<string>();
  for (const [source, locs] of outcome.locsBySource) if (!skip.has(source)) for (const loc of locs) all.add(loc);
  return all;
}

/** Failures once each (several roots of a site may reach the same failing sitemap). */
function uniqueFailures(failures: Failure[]): Failure[] {
  return [...new Map(failures.map((failure) => [`${failure.kind} ${failure.url}`, failure])).values()];
}

/** The URL the engine should report as failed for each missing child: resolved like the oracle, origin rewritten. */
function expectedFailures(run: SiteRun): string[] {
  const { site, server } = run;
  return run.oracle.missing_children.map(({ from, child }) => {
    const written = site.origin === null ? child : child.replaceAll(site.origin, server.origin);
    return from === 'roots' ? server.url(child) : new URL(written, server.url(from)).href;
  });
}

/** Served URLs of the oracle's broken files (no oracle figure: the engine's reading is reported, not judged). */
function brokenUrls(run: SiteRun): Set<string> {
  return new Set(Object.entries(run.files).flatMap(([path, file]) => (file.status === 'broken' ? [run.server.url(path)] : [])));
}

/** Items the oracle counted in one file, in the engine's terms: pages plus children (the engine adds its drops). */
function oracleItems(file: OracleFile): number {
  if (file.type === 'text') return file.lines ?? 0;
  if (file.root === 'rss' || file.root === 'feed') return file.feed_links ?? 0;
  return (file.url_entries ?? 0) + (file.sitemap_entries ?? 0);
}

/** Why the engine dropped locs in one served file, from its own parser's counts (`3 relative`). */
function dropReasons(run: SiteRun, path: string): string {
  const body = run.bodies.get(path) ?? Buffer.alloc(0);
  const bytes = body[0] === 0x1f && body[1] === 0x8b ? gunzipSync(body) : body;
  const { stats } = parseSitemapBytes(bytes, { sitemapUrl: run.server.url(path), maxUrlLength: DEFAULT_LIMITS.maxUrlLength });
  return Object.entries(stats.dropped)
    .filter(([, count]) => count > 0)
    .map(([reason, count]) => `${count} ${reason}`)
    .join(', ');
}

/** One file the oracle reads, against what the engine made of it; null when they reconcile without drops. */
function fileDifference(run: SiteRun, path: string, file: OracleFile): Difference | null {
  const url = run.server.url(path);
  const read = run.roots.sitemaps.get(url);
  if (!read) return { cause: null, text: `${path}: the oracle reads it, the engine did not (${failureOf(run, url)})` };
  const { entries, children, dropped } = read;
  if (entries + children + dropped !== oracleItems(file)) {
    return { cause: null, text: `${path}: engine ${entries} entries + ${children} children + ${dropped} dropped, oracle ${oracleItems(file)}` };
  }
  if (dropped === 0) return null;
  return { cause: 'locs dropped', text: `${path}: ${dropped} locs dropped by the engine (${dropReasons(run, path)})` };
}

/** File by file against the oracle (broken files apart), then any sitemap the engine read that the oracle never reaches. */
function fileDifferences(run: SiteRun, broken: ReadonlySet<string>): Difference[] {
  const out: Difference[] = [];
  for (const path of run.oracle.visited_files) {
    const file = run.files[path];
    const difference = file === undefined || broken.has(run.server.url(path)) ? null : fileDifference(run, path, file);
    if (difference) out.push(difference);
  }
  const visited = new Set(run.oracle.visited_files.map((path) => run.server.url(path)));
  for (const [url, read] of run.roots.sitemaps) {
    if (!visited.has(url)) out.push({ cause: null, text: `engine also read ${url} (${read.entries} entries), which the oracle never reaches` });
  }
  return out;
}

/** How the engine failed on a URL, for messages. */
function failureOf(run: SiteRun, url: string): string {
  const failure = run.roots.failures.find((item) => item.url === url);
  return failure ? `${failure.kind}: ${failure.message}` : 'never requested';
}

/** Distinct locs against the oracle: locs only broken files hold are counted apart, and every file is reconciled. */
function countDifferences(run: SiteRun, expected: number): Difference[] {
  const broken = brokenUrls(run);
  const found = locsOf(run.roots).size;
  const clean = locsOf(run.roots, broken).size;
  const files = fileDifferences(run, broken);
  const out: Difference[] = [];
  if (found !== clean) out.push({ cause: 'broken file read', text: `${found - clean} locs come only from broken file(s) the oracle cannot parse` });
  out.push(...files);
  // Drops explain a shortfall up to their number; anything else left over is not explained by any file.
  const dropped = [...run.roots.sitemaps.values()].filter((read) => !broken.has(read.url)).reduce((sum, read) => sum + read.dropped, 0);
  const gap = expected - clean;
  if (gap !== 0 && !files.some((difference) => difference.cause === null) && (gap < 0 || gap > dropped)) {
    out.push({ cause: null, text: `${clean} distinct locs vs ${expected} expected, ${dropped} dropped: no file accounts for the gap` });
  }
  return out;
}

/** Each missing child must come out as a failure naming it; a failure neither a missing child nor a broken file is flagged. */
function failureDifferences(run: SiteRun): Difference[] {
  const expected = expectedFailures(run);
  const failed = new Set(run.roots.failures.map((failure) => failure.url));
  const unreported = expected.filter((url) => !failed.has(url));
  const out: Difference[] = unreported.map((url) => ({ cause: null, text: unreportedChild(url, failed) }));
  // A failure named by a missing child's bare origin was reported just above, as what it is.
  const known = new Set([...expected, ...expected.map((url) => new URL(url).origin), ...brokenUrls(run)]);
  for (const failure of uniqueFailures(run.roots.failures)) {
    if (known.has(failure.url)) continue;
    out.push({ cause: null, text: `unexpected failure ${failure.kind} ${failure.url}: ${failure.message}` });
  }
  return out;
}

/** Why a missing child has no failure of its own: none at all, or one that names only its origin (the path was lost). */
function unreportedChild(url: string, failed: ReadonlySet<string>): string {
  const origin = new URL(url).origin;
  if (failed.has(origin)) return `missing child ${url} failed, but the failure names only ${origin} (its path is lost)`;
  return `missing child ${url} was not reported as a failed child`;
}

/** What the engine made of each broken file the oracle reaches: read as something (tolerated), or failed and why. */
function brokenNotes(run: SiteRun): string[] {
  return run.oracle.visited_files.flatMap((path) => {
    const file = run.files[path];
    if (file?.status !== 'broken') return [];
    const url = run.server.url(path);
    const read = run.roots.sitemaps.get(url);
    const engine = read
      ? `engine read it as ${read.format ?? '?'}: ${read.entries} entries, ${read.children} children, ${read.dropped} dropped`
      : `engine failed: ${failureOf(run, url)}`;
    return [`broken ${path} (oracle: ${file.parse_error ?? 'unparseable'}): ${engine}`];
  });
}

/** Where discovery starts: the folder of the site's robots.txt (a sub-path site's own folder), or null without one. */
function discoveryRoot(run: SiteRun): string | null {
  const robots = run.site.files.find((file) => file.kind === 'robots');
  if (!robots) return null;
  const folder = posix.dirname(robots.path);
  return run.server.url(folder === '.' ? '/' : `/${folder}/`);
}

/** Discovery, then a walk of what it found: a host root through walkSitemap's own discovery, a sub-path through discoverSitemaps. */
async function discoveryWalk(root: string, options: WalkOptionsInput): Promise<{ sitemaps: string[]; outcome: Outcome }> {
  const outcome = emptyOutcome();
  const sitemaps = await discoverSitemaps(root, options).catch((error: unknown) => (outcome.failures.push(asFailure(error)), []));
  if (isSiteRoot(root)) await walkFrom(root, options, outcome);
  else for (const url of sitemaps) await walkFrom(url, options, outcome);
  return { sitemaps, outcome };
}

/** Discovery should reach what the roots reach; a difference is explained when the engine said why (no sitemap, failures). */
async function discoveryFindings(run: SiteRun): Promise<{ notes: string[]; differences: Difference[] }> {
  const root = discoveryRoot(run);
  if (root === null) return { notes: [], differences: [] };
  const { sitemaps, outcome } = await discoveryWalk(root, run.options);
  const found = locsOf(outcome);
  const failures = briefFailures(run, uniqueFailures(outcome.failures));
  const listed = sitemaps.map((url) => shortUrl(run, url)).join(', ');
  const notes = [`discovery from ${shortUrl(run, root)}: [${listed}] -> ${found.size} locs; failures: ${failures}`];
  const fromRoots = locsOf(run.roots);
  if (sameSet(found, fromRoots)) return { notes, differences: [] };
  const why = sitemaps.length === 0 ? 'no Sitemap line and no well-known path answered' : `failures: ${failures}`;
  const cause = sitemaps.length === 0 || outcome.failures.length > 0 ? 'discovery' : null;
  return { notes, differences: [{ cause, text: `discovery reaches ${found.size} locs, the roots ${fromRoots.size} (${why})` }] };
}

/** Failures in a few words: each one when there are three or fewer, else a count per kind. */
function briefFailures(run: SiteRun, failures: Failure[]): string {
  if (failures.length === 0) return 'none';
  if (failures.length <= 3) return failures.map((failure) => `${failure.kind} ${shortUrl(run, failure.url)}`).join(', ');
  const kinds = new Map<string, number>();
  for (const failure of failures) kinds.set(failure.kind, (kinds.get(failure.kind) ?? 0) + 1);
  return [...kinds].map(([kind, count]) => `${count} ${kind}`).join(', ');
}

/** A URL on the site's server without its origin, for short messages. */
function shortUrl(run: SiteRun, url: string): string {
  return url.replace(run.server.origin, '');
}

/** True when both sets hold the same strings. */
function sameSet(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  return a.size === b.size && [...a].every((item) => b.has(item));
}

/** walkSitemap must yield every loc walkSitemapEvents does (it only adds alternates). */
function urlDifferences(run: SiteRun): Difference[] {
  const missing = [...locsOf(run.roots)].filter((loc) => !run.roots.urls.has(loc)).length;
  return missing === 0 ? [] : [{ cause: null, text: `walkSitemap lacks ${missing} locs that walkSitemapEvents yields` }];
}

/** Serves one site, walks it from each of its roots, and compares what was found with the oracle. */
async function checkSite(corpus: Corpus, site: Site): Promise<SiteReport> {
  const oracle = corpus.oracle.sites[site.id];
  if (!oracle) throw new UsageError(`oracle.json has no site ${site.id}`);
  const { server, bodies } = await serveSite(corpus.dir, site);
  try {
    const options: WalkOptionsInput = { net: { allowHosts: [`127.0.0.1:${server.port}`] } };
    const run: SiteRun = { site, files: corpus.oracle.files[site.id] ?? {}, oracle, server, bodies, options, roots: emptyOutcome() };
    for (const root of site.roots) await walkFrom(server.url(root), options, run.roots);
    return await reportOf(run);
  } finally {
    await server.close();
  }
}

/** One walked site against the oracle: counts, failures, walkSitemap's URLs, and discovery (run here, on the same server). */
async function reportOf(run: SiteRun): Promise<SiteReport> {
  const expected = run.oracle.total_distinct_page_urls;
  const discovery = await discoveryFindings(run);
  const differences = [...countDifferences(run, expected), ...failureDifferences(run), ...urlDifferences(run), ...discovery.differences];
  const failures = uniqueFailures(run.roots.failures).map((failure) => ({ ...failure, url: shortUrl(run, failure.url) }));
  const notes = [...brokenNotes(run), ...discovery.notes];
  return { id: run.site.id, expected, found: locsOf(run.roots).size, urls: run.roots.urls.size, failures, notes, differences };
}

/** A site's verdict: agree, differ (every difference explained) or DIFFER! (some are not). */
function verdictOf(report: SiteReport): string {
  if (report.differences.length === 0) return 'agree';
  return report.differences.every((difference) => difference.cause !== null) ? 'differ' : 'DIFFER!';
}

/** The findings of one site: failures, notes, and each difference with its cause. */
function printFindings(report: SiteReport): void {
  const lines = [`## ${report.id}: expected ${report.expected}, found ${report.found} (urls+alt ${report.urls}) -> ${verdictOf(report)}`];
  for (const failure of report.failures) lines.push(`  error ${failure.kind} ${failure.url}: ${failure.message}`);
  for (const note of report.notes) lines.push(`  ${note}`);
  for (const { cause, text } of report.differences) lines.push(`  ${cause === null ? 'UNEXPLAINED' : `explained (${cause})`}: ${text}`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** The table: site, expected, found, urls+alt, errors, verdict. */
function printTable(reports: SiteReport[]): void {
  const header = ['site', 'expected', 'found', 'urls+alt', 'errors', 'verdict'];
  const rows = reports.map((r) => [r.id, String(r.expected), String(r.found), String(r.urls), String(r.failures.length), verdictOf(r)]);
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)));
  const format = (row: string[]) =>
    row
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd();
  process.stdout.write(`\n${[format(header), ...rows.map(format)].join('\n')}\n\n`);
}

/** The last line: `N sites agree, M differ (explained: cause sites, ...; unexplained: site ids)`. */
function summaryLine(reports: SiteReport[]): string {
  const sitesPerCause = new Map<string, number>();
  for (const report of reports) {
    const causes = new Set(report.differences.map((difference) => difference.cause));
    for (const cause of causes) if (cause !== null) sitesPerCause.set(cause, (sitesPerCause.get(cause) ?? 0) + 1);
  }
  const agree = reports.filter((report) => report.differences.length === 0).length;
  const unexplained = reports.filter((report) => verdictOf(report) === 'DIFFER!').map((report) => report.id);
  const explained = [...sitesPerCause].map(([cause, sites]) => `${cause} ${sites}`).join(', ') || 'none';
  return `${agree} sites agree, ${reports.length - agree} differ (explained: ${explained}; unexplained: ${unexplained.join(', ') || 'none'})\n`;
}

/** The command line: the corpus folder and an optional single site. */
function parseCli(argv: string[]): { corpus: string; site: string | null } {
  try {
    const { values } = parseArgs({ args: argv, options: { corpus: { type: 'string' }, site: { type: 'string' } } });
    return { corpus: values.corpus ?? DEFAULT_CORPUS, site: values.site ?? null };
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

async function main(argv: string[]): Promise<number> {
  const cli = parseCli(argv);
  const corpus = await loadCorpus(cli.corpus);
  const sites = corpus.sites.filter((site) => cli.site === null || site.id === cli.site);
  if (sites.length === 0) throw new UsageError(`no site ${cli.site ?? ''} in ${cli.corpus}`);
  // Engine logs would drown the report: off unless LOG_LEVEL asks for them, and on stderr either way.
  sendLogsTo('stderr');
  setLogLevel(process.env.LOG_LEVEL ?? 'silent');
  const reports: SiteReport[] = [];
  try {
    for (const site of sites) {
      const report = await checkSite(corpus, site);
      printFindings(report);
      reports.push(report);
    }
  } finally {
    await closeAgents();
  }
  printTable(reports);
  process.stdout.write(summaryLine(reports));
  return 0;
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  if (!(error instanceof UsageError)) throw error;
  process.stderr.write(`corpus-check: ${error.message}\n${USAGE}`);
  process.exitCode = 2;
}
