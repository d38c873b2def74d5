// Turns a walk's events into a site check: each sitemap's record with its findings, and the site's own findings.
// Entries pass through once and are not kept: per-rule counts and a few examples are. A sitemap's entries may come
// after the walk's report of it (its last batch is handed out later), so records are made at the end.
import type { FactoryError } from '../../core/errors.js';
import { sitemapFailureOf, type ReportedError, type SitemapEntry } from '../../core/types.js';
import type { WalkEvent } from '../walk/walker.js';
import { documentFindings, problemFinding } from './document-rules.js';
import { SitemapEntryChecks, type SiteFacts } from './entry-checks.js';
import { bySeverity, type Finding } from './finding.js';
import { finding } from './make-finding.js';
import { foundViaOf, readStatusOf, type CheckCounts, type FoundVia, type SiteCheck, type SitemapCheck, type SitemapStatus } from './site-check.js';
import { SiteEntryChecks } from './site-checks.js';

/** How the roots of the walk were found. */
export type RootSource = SiteCheck['discovery'];

interface Seen {
  index: number;
  checks: SitemapEntryChecks;
  read: SitemapReadEvent | null;
  failure: ReportedError | null;
  /** Problems the read reported after it (a cap reached, a cut document). */
  problems: Finding[];
}

/** The walk's report of one sitemap it read. */
type SitemapReadEvent = Extract<WalkEvent<unknown>, { type: 'sitemap' }>;

function statusOf(error: FactoryError): { status?: number } {
  return error.context.status === undefined ? {} : { status: error.context.status };
}

/** Fed a walk's events in order; `report()` gives the check. */
export class SiteInspector {
  private readonly sitemaps = new Map<string, Seen>();
  private readonly site: SiteEntryChecks;
  private readonly siteProblems: Finding[] = [];

  constructor(
    private readonly rootUrl: string,
    private readonly source: RootSource,
    private readonly facts: SiteFacts,
  ) {
    this.site = new SiteEntryChecks(facts.rootHost);
  }

  see(event: WalkEvent<SitemapEntry>): void {
    if (event.type === 'batch') for (const entry of event.items) this.entry(entry);
    else if (event.type === 'sitemap') this.seen(event.url).read = event;
    else if (event.type === 'error') this.error(event);
  }

  private seen(url: string): Seen {
    let seen = this.sitemaps.get(url);
    if (seen === undefined) {
      const checks = new SitemapEntryChecks(url, this.facts, this.source === 'robots');
      seen = { index: this.sitemaps.size, checks, read: null, failure: null, problems: [] };
      this.sitemaps.set(url, seen);
    }
    return seen;
  }

  private entry(entry: SitemapEntry): void {
    const seen = this.seen(entry.source);
    if (this.site.see(entry, seen.index) === 'again') seen.checks.duplicate(entry.loc);
    seen.checks.see(entry);
  }

  private error(error: ReportedError): void {
    // Discovery's own problems (a well-known path refused by robots.txt) carry no depth: they are not sitemaps.
    if (error.url === null || error.depth === undefined) return;
    const seen = this.seen(error.url);
    if (seen.read === null) {
      seen.failure = error;
      return;
    }
    const problem = problemFinding(error);
    if (problem !== null) seen.problems.push(problem);
  }

  /**
   * The walk ended with nothing to check: no sitemap anywhere or robots.txt down are the site's findings; a root
   * sitemap that failed (every root did) is a failed sitemap, as a failed child is.
   */
  failed(error: FactoryError): void {
    if (error.kind === 'not_sitemap' && this.source === 'none') {
      this.siteProblems.push(finding('no_sitemap', error.message));
    } else if (error.kind === 'robots_unreachable') this.siteProblems.push(finding('robots_unreachable', error.message));
    else this.error({ kind: error.kind, url: error.url ?? this.rootUrl, message: error.message, parent: null, depth: 0, ...statusOf(error) });
  }

  private foundVia(parent: string | null | undefined): FoundVia {
    return foundViaOf(parent, this.source);
  }

  private record(url: string, seen: Seen): SitemapCheck | null {
    const { read, failure } = seen;
    if (read !== null) {
      const foundVia = this.foundVia(read.parent);
      const context = { parentFormat: read.parent === null ? null : ('sitemapindex' as const), foundBy: foundVia.by };
      const findings = bySeverity([...documentFindings(read, context), ...seen.checks.findings(read), ...seen.problems]);
      const counts = { urls: read.entries, children: read.children, dropped: read.dropped, bytes: read.bytes };
      return { url, foundVia, kind: read.format, status: readStatusOf(findings), failure: null, ...counts, findings };
    }
    if (failure === null) return null;
    return {
      url,
      foundVia: this.foundVia(failure.parent),
      kind: null,
      status: 'failed',
      failure: sitemapFailureOf(failure),
      ...{ urls: 0, children: 0, dropped: 0, bytes: 0 },
      findings: [],
    };
  }

  /** The check: sitemaps failing first, then with issues, then the rest, each group in the order they were found. */
  report(checkedAt: Date): SiteCheck {
    const rank: Record<SitemapStatus, number> = { failed: 0, has_issues: 1, ok: 2 };
    const sitemaps = [...this.sitemaps]
      .map(([url, seen]) => this.record(url, seen))
      .filter((record): record is SitemapCheck => record !== null)
      .sort((a, b) => rank[a.status] - rank[b.status]);
    const findings = bySeverity([...this.siteProblems, ...this.site.findings()]);
    return { rootUrl: this.rootUrl, checkedAt: checkedAt.toISOString(), discovery: this.source, sitemaps, findings, counts: countsOf(sitemaps, findings) };
  }
}

function countsOf(sitemaps: SitemapCheck[], siteFindings: Finding[]): CheckCounts {
  const all = [...siteFindings, ...sitemaps.flatMap((sitemap) => sitemap.findings)];
  const failed = sitemaps.filter((sitemap) => sitemap.status === 'failed').length;
  const of = (severity: Finding['severity']) => all.filter((f) => f.severity === severity).length;
  return { sitemaps: sitemaps.length, failed, errors: of('error') + failed, warnings: of('warning'), notices: of('notice') };
}
