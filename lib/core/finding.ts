import { z } from 'zod';

/** How much a finding matters: an error breaks the protocol or a search engine's reading; a notice is advice. */
export const SEVERITIES = ['error', 'warning', 'notice'] as const;
export const SeveritySchema = z.enum(SEVERITIES);
export type Severity = z.infer<typeof SeveritySchema>;

/** At most this many examples are kept per finding: enough to find the lines, bounded whatever the sitemap holds. */
export const MAX_EXAMPLES = 3;

/** One thing wrong with a sitemap (or with the site's sitemaps together): which rule, how often, and examples. */
export const FindingSchema = z.object({
  rule: z.string(),
  severity: SeveritySchema,
  message: z.string(),
  count: z.number().int().positive(),
  examples: z.array(z.string()).max(MAX_EXAMPLES),
});
export type Finding = z.infer<typeof FindingSchema>;
