import { z } from 'zod';
import { WalkOptionsSchema } from '../core/limits.js';
import {
  ChangefreqSchema,
  JobCycleSchema,
  JobStateSchema,
  ReportedErrorSchema,
  SitemapRefSchema,
  SitemapValidatorSchema,
  type SitemapValidator,
  type ActiveSitemap,
  type JobCycle,
  type JobState,
  type ReportedError,
  type ShardEntry,
  type SitemapRef,
  SitemapReportSchema,
  type SitemapReport,
} from '../core/types.js';
import { JobIdSchema } from './job-id.js';
import { StoreError } from './store-errors.js';

/** Version of the record layout; a record of another version is foreign, not guessed at. */
export const RECORD_VERSION = 1;

/**
 * One unit of claimable work: site discovery (robots.txt and well-known paths), one sitemap (`origin` says where a
 * root came from; absent: given by the caller, or a child), or the well-known paths tried after every robots.txt
 * sitemap failed (`tried`: those sitemaps, skipped).
 */
export const WorkItemSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('discover'), rootUrl: z.string() }),
  z.object({ type: z.literal('sitemap'), ref: SitemapRefSchema, origin: z.enum(['robots', 'home-page', 'fallback']).optional() }),
  z.object({ type: z.literal('fallback'), rootUrl: z.string(), tried: z.array(z.string()).max(1_000) }),
]);
export type WorkItem = z.infer<typeof WorkItemSchema>;

/**
 * A job's sitemap work and its stored progress ARE the walk's ActiveSitemap (WalkState.active): the ref, the URLs
 * committed as `emitted` (where the next pass resumes), the children it queued as `added`.
 */
export function activeSitemapOf(ref: SitemapRef, progress: { offset: number; added: number }): ActiveSitemap {
  return { ...ref, emitted: progress.offset, added: progress.added };
}

/**
 * A job's limits: the walk options without the network policy, which is the running deployment's (passed to
 * every slice) and never stored in, or taken from, a job. A `net` field in an older record is dropped on read.
 */
export const JobWalkOptionsSchema = WalkOptionsSchema.omit({ net: true });
export type JobWalkOptions = z.output<typeof JobWalkOptionsSchema>;

/** What a job was asked to do, fixed at creation: where to start and the limits it walks with. */
export const JobMetaSchema = z.object({
  v: z.literal(RECORD_VERSION),
  jobId: JobIdSchema,
  rootUrl: z.string().nullable(),
  sitemapUrls: z.array(z.string()),
  options: JobWalkOptionsSchema,
  createdAt: z.string(),
  /** Incremental re-sync: the job whose validators this one was given, if they came from a job. */
  previousJobId: JobIdSchema.nullable().optional(),
  /** Incremental re-sync: how many previous validators the job was given (absent or 0: every sitemap is read whole). */
  previousSitemaps: z.number().int().nonnegative().optional(),
});
export type JobMeta = z.infer<typeof JobMetaSchema>;

/** JobMeta as a caller builds it: options already resolved (defaults filled). */
export interface JobMetaInput {
  jobId: string;
  rootUrl: string | null;
  sitemapUrls: string[];
  options: JobWalkOptions;
  createdAt: string;
  previousJobId?: string | null;
  previousSitemaps?: number;
}

// Counters come back from Redis as decimal strings; anything else would poison later increments.
const Count = z
  .string()
  .regex(/^\d{1,15}$/)
  .transform(Number);
const IsoDate = z.iso.datetime();

/** The job's status hash: state, counters and timestamps, all kept as strings by Redis. */
export const StatusHashSchema = z.object({
  v: z.literal(String(RECORD_VERSION)),
  state: JobStateSchema,
  urlsFound: Count,
  shardsWritten: Count,
  sitemapsDone: Count,
  roots: Count,
  rootsFailed: Count,
  errorCount: Count,
  nextId: Count,
  maxSitemaps: Count,
  maxUrls: Count,
  createdAt: IsoDate,
  updatedAt: IsoDate,
  expiresAt: Count,
  // Added after the first release: a job created before has neither field until its first duplicate or cycle.
  duplicates: Count.default(0),
  cycleCount: Count.default(0),
});
export type StatusHash = z.infer<typeof StatusHashSchema>;

/**
 * A shard as stored: at most 1000 entries of one sitemap, compact (the source once, each entry a tuple) because
 * a big job keeps a million of them in Redis.
 */
const StoredShardSchema = z.object({
  s: z.string(),
  // The locale (fifth) came after the first release: a shard written before has four, read as no locale.
  e: z
    .array(
      z.union([
        z.tuple([z.string(), z.string().nullable(), ChangefreqSchema.nullable(), z.number().nullable(), z.string().nullable()]),
        z.tuple([z.string(), z.string().nullable(), ChangefreqSchema.nullable(), z.number().nullable()]),
      ]),
    )
    .max(1000),
});

/** A stored shard read back as entries. */
export const ShardSchema = StoredShardSchema.transform(({ s, e }): ShardEntry[] =>
  e.map(([url, lastmod, changefreq, priority, locale = null]) => ({ url, lastmod, changefreq, priority, source: s, locale })),
);

/** A shard's entries in their stored form (all of one sitemap: the first entry's source names it). */
export function serializeShard(entries: ShardEntry[]): string {
  const source = entries[0]?.source ?? '';
  return JSON.stringify({ s: source, e: entries.map((entry) => [entry.url, entry.lastmod, entry.changefreq, entry.priority, entry.locale]) });
}

/** Parses `raw` (a JSON string) with `schema`; a record that does not validate is corrupt, never trusted. */
export function parseJsonRecord<T>(raw: string, schema: z.ZodType<T>, key: string): T {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (cause) {
    throw new StoreError('corrupt', `record ${key} is not JSON`, { key, cause });
  }
  return parseRecord(value, schema, key);
}

/** Validates a value read back from the store; a mismatch is corrupt. */
export function parseRecord<T>(value: unknown, schema: z.ZodType<T>, key: string): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new StoreError('corrupt', `record ${key} does not validate: ${z.prettifyError(result.error)}`, { key, cause: result.error });
}

/** Meta as stored: JSON with non-finite limits left out (JSON has no Infinity; unlimited is their default). */
export function serializeMeta(meta: JobMetaInput): string {
  const record = { v: RECORD_VERSION, ...meta };
  return JSON.stringify(record, (_key, value: unknown) => (typeof value === 'number' && !Number.isFinite(value) ? undefined : value));
}

/** Reads meta back, refusing a record written for another job (a copied or foreign key). */
export function parseMeta(raw: string, jobId: string, key: string): JobMeta {
  const meta = parseJsonRecord(raw, JobMetaSchema, key);
  if (meta.jobId !== jobId) throw new StoreError('foreign', `record ${key} belongs to job ${meta.jobId}`, { key });
  return meta;
}

/** A sitemap's validator as stored in the job's validators hash. */
export function serializeValidator(validator: SitemapValidator): string {
  return JSON.stringify(SitemapValidatorSchema.parse(validator));
}

/** A sitemap's report as stored in the job's reports hash (by work id). */
export function serializeReport(report: SitemapReport): string {
  return JSON.stringify(SitemapReportSchema.parse(report));
}

/** An error as stored in the job's error list. */
export function serializeError(error: ReportedError): string {
  return JSON.stringify(ReportedErrorSchema.parse(error));
}

/** Turns a flat `[field, value, ...]` HGETALL reply into an object. */
export function pairsToObject(flat: readonly string[]): Record<string, string> {
  const object: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) object[flat[i] as string] = flat[i + 1] as string;
  return object;
}

/** A cycle as stored in the job's cycle list. */
export function serializeCycle(cycle: JobCycle): string {
  return JSON.stringify(JobCycleSchema.parse(cycle));
}

/** The active work claimed most often since it last progressed: what a stalled job is stuck on. */
export interface WorkProgress {
  item: WorkItem;
  offset: number;
  claims: number;
}

/** A job's status as every store keeps it: counters, the frontier as claims see it, kept errors and cycles. */
export interface StatusParts {
  state: JobState;
  urlsFound: number;
  shardsWritten: number;
  sitemapsDone: number;
  /** Work queued and never claimed. */
  pending: number;
  /** Work claimed and not finished (leased right now, or its lease lapsed). */
  active: number;
  /** Active work under a live lease: someone is working on it. */
  leased: number;
  /** The fewest claims-without-progress of any active work (0 when none is active). */
  fewestClaims: number;
  mostClaimed: WorkProgress | null;
  errors: ReportedError[];
  cycles: JobCycle[];
  cycleCount: number;
  duplicates: number;
  createdAt: string;
  updatedAt: string;
}

/** StatusParts with the kept errors and cycles still as stored (JSON), before validation. */
export type RawStatusParts = Omit<StatusParts, 'errors' | 'cycles' | 'mostClaimed'> & {
  errors: readonly string[];
  cycles: readonly string[];
  mostClaimed: { item: string; offset: number; claims: number } | null;
};

/** Validates the stored records of a status (`key` names them in errors): a corrupt one is an error, never trusted. */
export function statusPartsFrom(raw: RawStatusParts, key: string): StatusParts {
  const { mostClaimed } = raw;
  return {
    ...raw,
    errors: raw.errors.map((json, i) => parseJsonRecord(json, ReportedErrorSchema, `${key} error ${i}`)),
    cycles: raw.cycles.map((json, i) => parseJsonRecord(json, JobCycleSchema, `${key} cycle ${i}`)),
    mostClaimed: mostClaimed && { ...mostClaimed, item: parseJsonRecord(mostClaimed.item, WorkItemSchema, `${key} item`) },
  };
}
