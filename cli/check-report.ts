// `check`'s human report: each sitemap failing first with its findings and examples, the site's findings, then counts.
import type { CheckCounts, Finding, SiteCheck, SitemapCheck } from '../lib/index.js';

const STATUS_WORD: Record<SitemapCheck['status'], string> = { failed: 'FAILED', has_issues: 'ISSUES', ok: 'OK' };
const VIA: Record<SitemapCheck['foundVia']['by'], string> = {
  robots: 'via robots.txt',
  'home-page': 'linked from the home page',
  'well-known': 'at a well-known path',
  index: 'listed',
  given: 'given',
};
const DISCOVERY: Record<SiteCheck['discovery'], string> = {
  robots: 'sitemaps from robots.txt',
  'home-page': 'sitemaps linked from the home page',
  fallback: 'a sitemap at a well-known path',
  none: 'no sitemap found',
  given: 'the sitemap given',
};

const figure = (n: number) => n.toLocaleString('en-US');
const plural = (n: number, word: string, words = `${word}s`) => `${figure(n)} ${n === 1 ? word : words}`;

function findingLines(finding: Finding, indent: string): string[] {
  const lines = [`${indent}${finding.severity.padEnd(8)}${finding.rule}: ${finding.message}`];
  for (const example of finding.examples) lines.push(`${indent}        e.g. ${example}`);
  return lines;
}

function sitemapLines(sitemap: SitemapCheck): string[] {
  const what =
    sitemap.kind === 'sitemapindex'
      ? plural(sitemap.children, 'child', 'children')
      : sitemap.kind === null
        ? null
        : `${sitemap.kind} · ${plural(sitemap.urls, 'URL')}`;
  const via = sitemap.foundVia.parent === null ? VIA[sitemap.foundVia.by] : `listed by ${sitemap.foundVia.parent}`;
  const head = `${STATUS_WORD[sitemap.status].padEnd(7)}${sitemap.url}  ${[what, via].filter((part) => part !== null).join(' · ')}`;
  const failure = sitemap.failure === null ? [] : [`       ${sitemap.failure.kind}: ${sitemap.failure.message}`];
  return [head, ...failure, ...sitemap.findings.flatMap((finding) => findingLines(finding, '       '))];
}

/** The counts line: `3 sitemaps (1 failed) · 2 errors, 1 warning, 0 notices`. */
export function countsLine(counts: CheckCounts): string {
  const failed = counts.failed > 0 ? ` (${figure(counts.failed)} failed)` : '';
  return `${plural(counts.sitemaps, 'sitemap')}${failed} · ${plural(counts.errors, 'error')}, ${plural(counts.warnings, 'warning')}, ${plural(counts.notices, 'notice')}`;
}

/** The whole report as lines of text. */
export function checkReportLines(check: SiteCheck): string[] {
  const lines = [`check ${check.rootUrl} (${DISCOVERY[check.discovery]}, ${check.checkedAt})`, ''];
  for (const sitemap of check.sitemaps) lines.push(...sitemapLines(sitemap));
  if (check.findings.length > 0) lines.push('', 'across the sitemaps', ...check.findings.flatMap((finding) => findingLines(finding, '       ')));
  lines.push('', countsLine(check.counts));
  return lines;
}
