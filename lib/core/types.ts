import { LocDropsSchema } from './loc-drops.js';
import { z } from 'zod';
import { ERROR_KINDS } from './errors.js';
import { FindingSchema } from './finding.js';

/** Valid `<changefreq>` values (sitemaps.org); anything else is read as null. */
export const ChangefreqSchema = z.enum(['always', 'hourly', 'daily', 'weekly', 'monthly', 'yearly', 'never']);
export type Changefreq = z.infer<typeof ChangefreqSchema>;

/** An hreflang alternate of a page (`<xhtml:link rel="alternate" hreflang href>`). */
export const AlternateSchema = z.object({ hreflang: z.string(), href: z.string() });
export type Alternate = z.infer<typeof AlternateSchema>;

/** Google image extension (`<image:image>`). */
export const ImageSchema = z.object({
  loc: z.string(),
  title: z.string().nullable(),
  caption: z.string().nullable(),
  geoLocation: z.string().nullable(),
  license: z.string().nullable(),
});
export type SitemapImage = z.infer<typeof ImageSchema>;

/** Google video extension (`<video:video>`). */
export const VideoSchema = z.object({
  thumbnailLoc: z.string().nullable(),
  title: z.string().nullable(),
  description: z.string().nullable(),
  contentLoc: z.string().nullable(),
  playerLoc: z.string().nullable(),
  duration: z.number().nullable(),
  expirationDate: z.string().nullable(),
  rating: z.number().nullable(),
  viewCount: z.number().nullable(),
  publicationDate: z.string().nullable(),
  familyFriendly: z.boolean().nullable(),
  requiresSubscription: z.boolean().nullable(),
  live: z.boolean().nullable(),
  uploader: z.string().nullable(),
  tags: z.array(z.string()),
});
export type SitemapVideo = z.infer<typeof VideoSchema>;

/** Google news extension (`<news:news>`). */
export const NewsSchema = z.object({
  publicationName: z.string().nullable(),
  publicationLanguage: z.string().nullable(),
  publicationDate: z.string().nullable(),
  title: z.string().nullable(),
  keywords: z.array(z.string()),
});
export type SitemapNews = z.infer<typeof NewsSchema>;

/** One page as a sitemap file describes it, before the walker adds where it came from. */
export const ParsedUrlSchema = z.object({
  loc: z.string(),
  lastmod: z.string().nullable(),
  changefreq: ChangefreqSchema.nullable(),
  priority: z.number().nullable(),
  alternates: z.array(AlternateSchema),
  images: z.array(ImageSchema),
  videos: z.array(VideoSchema),
  news: NewsSchema.nullable(),
});
export type ParsedUrl = z.infer<typeof ParsedUrlSchema>;

/** A page entry as the walker yields it: the parsed page plus its sitemap, depth, locale and root folder. */
export const SitemapEntrySchema = ParsedUrlSchema.extend({
  source: z.string(),
  depth: z.number().int().nonnegative(),
  locale: z.string().nullable(),
  pathPrefix: z.string().nullable(),
});
export type SitemapEntry = z.infer<typeof SitemapEntrySchema>;

/** One page URL as a job shard keeps it: the URL with what its sitemap says of it (alternates inherit their loc's). */
export const ShardEntrySchema = z.object({
  url: z.string(),
  lastmod: z.string().nullable(),
  changefreq: ChangefreqSchema.nullable(),
  priority: z.number().nullable(),
  source: z.string(),
  /** The page's locale as the walk's filter judged it (its path, else its hreflang); null when it states none. */
  locale: z.string().nullable(),
});
export type ShardEntry = z.infer<typeof ShardEntrySchema>;

/** Formats the parser recognises from the bytes. */
export const SitemapFormatSchema = z.enum(['urlset', 'sitemapindex', 'text', 'rss', 'atom']);
export type SitemapFormat = z.infer<typeof SitemapFormatSchema>;

export const ErrorKindSchema = z.enum(ERROR_KINDS);

/** A failure reported as data (a child sitemap, a robots line), never thrown. */
export const ReportedErrorSchema = z.object({
  kind: ErrorKindSchema,
  url: z.string().nullable(),
  message: z.string(),
  parent: z.string().nullable().optional(),
  depth: z.number().int().nonnegative().optional(),
  /** The HTTP status, for `http_status`: a 404 or 410 means the sitemap is gone (see `sitemapFate`). */
  status: z.number().int().optional(),
  /** The sitemap was read whole: this reports what it listed and was refused (junk child locs), not a failure of it. */
  readWhole: z.literal(true).optional(),
});
export type ReportedError = z.infer<typeof ReportedErrorSchema>;

/** A sitemap waiting to be fetched: its URL, depth in the tree, the index that listed it and the `<lastmod>` it was listed with. */
export const SitemapRefSchema = z.object({
  url: z.string(),
  depth: z.number().int().nonnegative(),
  parent: z.string().nullable(),
  /** The parent index's `<lastmod>` for this child (absent for roots; null when the index gave none or an invalid one). */
  lastmod: z.string().max(100).nullable().optional(),
});
export type SitemapRef = z.infer<typeof SitemapRefSchema>;

/**
 * What a previous run learned of one sitemap, so the next run can skip it or ask for it conditionally: the
 * response's `ETag` and `Last-Modified`, and the `<lastmod>` its parent index listed it with.
 */
export const SitemapValidatorSchema = z.object({
  etag: z.string().max(1_024).nullable(),
  lastModified: z.string().max(200).nullable(),
  lastmod: z.string().max(100).nullable(),
});
export type SitemapValidator = z.infer<typeof SitemapValidatorSchema>;

/** Where discovery found a site's root sitemaps: robots.txt, the home page's `<link rel="sitemap">`, a well-known path, or nowhere. */
export const SitemapSourceSchema = z.enum(['robots', 'home-page', 'fallback', 'none']);
export type SitemapSource = z.infer<typeof SitemapSourceSchema>;

/** How one sitemap was found: robots.txt, the home page, a well-known path, an index (its parent), or the caller. */
export const FoundBySchema = z.enum(['robots', 'home-page', 'well-known', 'index', 'given']);
export type FoundBy = z.infer<typeof FoundBySchema>;

/** Why a sitemap could not be read: the failure's kind and message, and the HTTP status when one was answered. */
export const SitemapFailureSchema = z.object({ kind: ErrorKindSchema, message: z.string(), httpStatus: z.number().int().nullable() });
export type SitemapFailure = z.infer<typeof SitemapFailureSchema>;

/** A reported failure as a sitemap's record says it. */
export function sitemapFailureOf(error: Pick<ReportedError, 'kind' | 'message' | 'status'>): SitemapFailure {
  return { kind: error.kind, message: error.message, httpStatus: error.status ?? null };
}

/**
 * One sitemap as a job read it, kept by the job's store for its sync to record: where it sits in the tree, what it
 * is, what it gave, and the findings its read alone shows (how it was served and how its document starts).
 */
export const SitemapReportSchema = z.object({
  url: z.string(),
  foundVia: FoundBySchema,
  parent: z.string().nullable(),
  depth: z.number().int().nonnegative(),
  kind: SitemapFormatSchema.nullable(),
  urls: z.number().int().nonnegative(),
  children: z.number().int().nonnegative(),
  dropped: z.number().int().nonnegative(),
  bytes: z.number().int().nonnegative(),
  /** Not read: unchanged since the previous run (its figures are the previous read's). */
  unchanged: z.boolean(),
  findings: z.array(FindingSchema).max(64),
});
export type SitemapReport = z.infer<typeof SitemapReportSchema>;

/** A run's validators, per sitemap identity key (lib/factory/url); only sitemaps that may be skipped next time are kept. */
export const ValidatorsSchema = z.record(z.string().max(4_096), SitemapValidatorSchema);
export type Validators = z.infer<typeof ValidatorsSchema>;

/**
 * A sitemap partly emitted: re-read from the start and skip `emitted` entries on resume. `added`: children it queued
 * already, which a re-read meets again in the visited set (they are its own, not duplicates). A job's claimed
 * sitemap is one too (lib/store/records.ts `activeSitemapOf`).
 */
export const ActiveSitemapSchema = SitemapRefSchema.extend({ emitted: z.number().int().nonnegative(), added: z.number().int().nonnegative().optional() });
export type ActiveSitemap = z.infer<typeof ActiveSitemapSchema>;

/** Everything a walk needs to resume after any batch: plain data, safe to JSON and store. */
export const WalkStateSchema = z.object({
  frontier: z.array(SitemapRefSchema),
  active: z.array(ActiveSitemapSchema),
  visited: z.array(z.string()),
  sitemapsDone: z.number().int().nonnegative(),
  urlsEmitted: z.number().int().nonnegative(),
  /** Roots the walk started with (absent in states saved before roots were counted). */
  roots: z.number().int().nonnegative().optional(),
  /** Roots that failed having yielded nothing, not yet reported: if every root did, the walk fails with the first. */
  failedRoots: z.array(ReportedErrorSchema).optional(),
});
export type WalkState = z.infer<typeof WalkStateSchema>;

/** Counts a walk reports in its summary. */
export const WalkSummarySchema = z.object({
  urls: z.number().int().nonnegative(),
  sitemaps: z.number().int().nonnegative(),
  errors: z.number().int().nonnegative(),
  dropped: z.number().int().nonnegative(),
  /** The locs dropped, by reason, each with its count and the first one (`dropped` is their total). */
  drops: LocDropsSchema,
  /** The caller's limit that stopped the walk (`maxUrls (N) reached: ...`), or null: the walk read everything. */
  limitReached: z.string().nullable(),
  durationMs: z.number().nonnegative(),
});
export type WalkSummary = z.infer<typeof WalkSummarySchema>;

/** A group of URLs sharing their first content path segment (`/blog/*`). */
export const PathGroupSchema = z.object({
  prefix: z.string(),
  count: z.number().int().nonnegative(),
  samples: z.array(z.string()).max(10),
  locales: z.array(z.string()),
});
export type PathGroup = z.infer<typeof PathGroupSchema>;

/** The wizard's pre-flight answer: how big the site is, in which languages, and how to fetch it. */
export const ScopeEstimateSchema = z.object({
  rootUrl: z.string(),
  sitemaps: z.array(z.string()),
  /** Where the sitemaps came from: robots.txt, the home page's link, a well-known path, nowhere; null: discovery did not end within the budget. */
  sitemapSource: SitemapSourceSchema.nullable(),
  subSitemapCount: z.number().int().nonnegative(),
  urlEstimateRange: z.tuple([z.number().int().nonnegative(), z.number().int().nonnegative()]),
  urlEstimate: z.number().int().nonnegative().nullable(),
  sampledChildren: z.number().int().nonnegative(),
  languagesDetected: z.array(z.string()),
  /** The path groups of the URLs the probe read (their counts are of that sample), largest first, `other` last. */
  pathGroups: z.array(PathGroupSchema),
  /** The locales of the URLs the probe read, each with how many of them a filter on it keeps, most first. */
  locales: z.array(z.object({ locale: z.string(), urls: z.number().int().nonnegative() })),
  expectedDuration: z.number().nonnegative(),
  transport: z.enum(['fetch', 'playwright']),
  requests: z.number().int().nonnegative(),
  probeMs: z.number().nonnegative(),
  warnings: z.array(z.string()),
});
export type ScopeEstimate = z.infer<typeof ScopeEstimateSchema>;

/** States of a resumable discovery job. */
export const JobStateSchema = z.enum(['running', 'done', 'stopped', 'failed']);
export type JobState = z.infer<typeof JobStateSchema>;

/** A sitemap whose final URL (after redirects) was already visited: `url` was not read, `target` was. */
export const JobCycleSchema = z.object({ url: z.string(), target: z.string() });
export type JobCycle = z.infer<typeof JobCycleSchema>;

/** Why a running job cannot advance: the sitemap (or site root) it is stuck on, why, and for how long nothing progressed. */
export const JobStalledSchema = z.object({
  url: z.string(),
  reason: z.string(),
  /** Claims of that work since its offset last moved. */
  claims: z.number().int().nonnegative(),
  /** URLs of it committed so far: where every pass resumed. */
  offset: z.number().int().nonnegative(),
  /** Milliseconds since the job last progressed (a shard committed, children queued, work finished). */
  sinceMs: z.number().int().nonnegative(),
});
export type JobStalled = z.infer<typeof JobStalledSchema>;

/** What `discover` answers about a job (DESIGN "HTTP API contract"). */
export const JobStatusSchema = z.object({
  jobId: z.string(),
  state: JobStateSchema,
  done: z.boolean(),
  urlsFound: z.number().int().nonnegative(),
  shardsWritten: z.number().int().nonnegative(),
  sitemapsDone: z.number().int().nonnegative(),
  sitemapsPending: z.number().int().nonnegative(),
  errors: z.array(z.object({ kind: ErrorKindSchema, url: z.string().nullable(), message: z.string(), status: z.number().int().optional() })),
  startedAt: z.string(),
  /** The caller's limit that ended the job (`maxUrls (N) reached: ...`): a limit, not among its errors; null otherwise. */
  limitReached: z.string().nullable().default(null),
  updatedAt: z.string(),
  // Added later: defaults read an older server's answer as "none".
  /** Set while the job is running but cannot advance (drivers stop looping on it); null otherwise. */
  stalled: JobStalledSchema.nullable().default(null),
  /** Redirects into sitemaps already visited (the first 1000 kept), and how many there were in all. */
  cycles: z.array(JobCycleSchema).default([]),
  cycleCount: z.number().int().nonnegative().default(0),
  /** Children listed by an index that were already visited (listed twice, by another index, or a variant of an ancestor). */
  duplicates: z.number().int().nonnegative().default(0),
});
export type JobStatus = z.infer<typeof JobStatusSchema>;
