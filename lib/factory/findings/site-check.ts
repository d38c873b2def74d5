import { z } from 'zod';
import { FoundBySchema, SitemapFailureSchema, SitemapFormatSchema, SitemapSourceSchema } from '../../core/types.js';
import { FindingSchema, type Finding } from './finding.js';

/** How a sitemap was found: robots.txt, the home page's `<link rel="sitemap">`, a well-known path, an index (its `parent`), or the caller. */
export const FoundViaSchema = z.object({ by: FoundBySchema, parent: z.string().nullable() });
export type FoundVia = z.infer<typeof FoundViaSchema>;

const FOUND_BY = { robots: 'robots', 'home-page': 'home-page', fallback: 'well-known', none: 'given', given: 'given' } as const;

/** How a sitemap was found: its parent index, else how the roots were found (robots.txt, probing, or the caller). */
export function foundViaOf(parent: string | null | undefined, roots: keyof typeof FOUND_BY): FoundVia {
  return parent ? { by: 'index', parent } : { by: FOUND_BY[roots], parent: null };
}

/** `ok`: read, nothing wrong; `has_issues`: read, with an error or a warning; `failed`: not read (its failure says why). */
export const SitemapStatusSchema = z.enum(['ok', 'has_issues', 'failed']);
export type SitemapStatus = z.infer<typeof SitemapStatusSchema>;

/** A read sitemap's status from its findings: an error or a warning is an issue; notices are advice. */
export function readStatusOf(findings: readonly Finding[]): Exclude<SitemapStatus, 'failed'> {
  return findings.some((finding) => finding.severity !== 'notice') ? 'has_issues' : 'ok';
}

/** One sitemap of a check: where it was found, what it is, what it gave, and what is wrong with it. */
export const SitemapCheckSchema = z.object({
  url: z.string(),
  foundVia: FoundViaSchema,
  kind: SitemapFormatSchema.nullable(),
  status: SitemapStatusSchema,
  failure: SitemapFailureSchema.nullable(),
  /** Page entries listed (up to the per-file cap), and child sitemaps for an index. */
  urls: z.number().int().nonnegative(),
  children: z.number().int().nonnegative(),
  /** Locs dropped as unusable. */
  dropped: z.number().int().nonnegative(),
  /** Bytes of the document, uncompressed. */
  bytes: z.number().int().nonnegative(),
  findings: z.array(FindingSchema),
});
export type SitemapCheck = z.infer<typeof SitemapCheckSchema>;

export const CheckCountsSchema = z.object({
  sitemaps: z.number().int().nonnegative(),
  failed: z.number().int().nonnegative(),
  /** Findings of each severity, the site's and every sitemap's; a failed sitemap counts as an error. */
  errors: z.number().int().nonnegative(),
  warnings: z.number().int().nonnegative(),
  notices: z.number().int().nonnegative(),
});
export type CheckCounts = z.infer<typeof CheckCountsSchema>;

/** A whole check: the site (or the one sitemap given), each sitemap, the findings of the sitemaps together, and counts. */
export const SiteCheckSchema = z.object({
  rootUrl: z.string(),
  checkedAt: z.string(),
  /** Where the roots came from: robots.txt, the home page, a well-known path, nowhere, or the caller (a sitemap URL given). */
  discovery: SitemapSourceSchema.or(z.literal('given')),
  sitemaps: z.array(SitemapCheckSchema),
  findings: z.array(FindingSchema),
  counts: CheckCountsSchema,
});
export type SiteCheck = z.infer<typeof SiteCheckSchema>;
