import { z } from 'zod';
import { patternProblem } from './url-pattern.js';

/** Which page URLs a walk keeps relative to its root's host: every one, the same registrable domain, or the same host. */
export const ScopeSchema = z.enum(['all', 'domain', 'host']);
export type Scope = z.infer<typeof ScopeSchema>;

// A pattern must compile for the linear-time engine; the message says why one does not.
const pattern = z
  .string()
  .min(1)
  .max(1_000)
  .superRefine((value, context) => {
    const problem = patternProblem(value);
    if (problem !== null) context.addIssue({ code: 'custom', message: problem });
  });

/**
 * Which entries a walk keeps, applied while streaming (never after buffering). Every list narrows:
 * an entry is kept when it matches one `include` (if any), no `exclude`, one path prefix (if any),
 * one locale (if any), the `since` date and the scope.
 */
export const FilterOptionsSchema = z.object({
  /** URL patterns to keep: a glob (`/blog/**`, `https://*.example.com/**`) or `/regex/flags`. */
  include: z.array(pattern).max(100).default([]),
  /** URL patterns to drop, same syntax; exclude wins over include. */
  exclude: z.array(pattern).max(100).default([]),
  /** Path prefixes to keep (`/docs/`); a leading locale folder is looked through (`/en-us/docs/x` is under `/docs/`). */
  pathPrefixes: z.array(z.string().min(1).max(2_048)).max(100).default([]),
  /** Locales to keep, as `groups` reports them (`en-US`); a bare language (`en`) keeps all of its regions. */
  locales: z.array(z.string().min(2).max(35)).max(100).default([]),
  /** Keep entries whose lastmod is on or after this date (ISO 8601); entries without lastmod are kept unless `requireLastmod`. */
  since: z.iso
    .date()
    .or(z.iso.datetime({ offset: true }))
    .nullable()
    .default(null),
  /** Drop entries without a (valid) lastmod when `since` is set. */
  requireLastmod: z.boolean().default(false),
  /** `all` (default, as crawlee), `domain` (same registrable domain as the root) or `host` (same host). */
  scope: ScopeSchema.default('all'),
  /** The URL whose host `scope` compares with; the walk fills in its root, a job its root URL. */
  scopeRoot: z.string().max(2_048).nullable().default(null),
});

/** Filter options as callers pass them: every field optional. */
export type FilterOptionsInput = z.input<typeof FilterOptionsSchema>;
/** Filter options with every default filled in. */
export type FilterOptions = z.output<typeof FilterOptionsSchema>;
