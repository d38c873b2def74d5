// The findings: what is wrong with a site's sitemaps, by the protocol's and the search engines' rules.
export { checkSite } from './check-site.js';
export { readStatusOf } from './site-check.js';
export { RULES, type RuleId } from './rules.js';
export { FindingSchema, SEVERITIES, SeveritySchema, type Finding, type Severity } from './finding.js';
export {
  SiteCheckSchema,
  SitemapCheckSchema,
  SitemapStatusSchema,
  FoundViaSchema,
  type SiteCheck,
  type SitemapCheck,
  type SitemapStatus,
  type FoundVia,
  type CheckCounts,
} from './site-check.js';
