import type { SitemapRef, SitemapReport } from '../../core/types.js';
import type { SitemapReadSummary } from '../walk/sitemap-reader.js';
import type { RootOrigin } from '../walk/walk-policy.js';
import { documentFindings, problemFinding } from './document-rules.js';
import { bySeverity } from './finding.js';
import { foundViaOf } from './site-check.js';

/**
 * What a job keeps of one sitemap it read, for its sync to record: its place in the tree, its figures, and the
 * findings its read shows (how it was served, how its document starts, its drops and caps). The entry rules need
 * every entry of the site and run in `check`.
 */
export function sitemapReport(summary: SitemapReadSummary, ref: SitemapRef, origin: RootOrigin): SitemapReport {
  const foundVia = foundViaOf(ref.parent, origin);
  const context = { parentFormat: ref.parent === null ? null : ('sitemapindex' as const), foundBy: foundVia.by };
  const problems = summary.problems.flatMap((problem) => problemFinding(problem) ?? []);
  return {
    url: ref.url,
    foundVia: foundVia.by,
    parent: ref.parent,
    depth: ref.depth,
    kind: summary.format,
    urls: summary.entries,
    children: summary.children,
    dropped: summary.dropped,
    bytes: summary.bytes,
    unchanged: summary.unchanged,
    findings: bySeverity([...documentFindings(summary, context), ...problems]),
  };
}
