import { z } from 'zod';
import { DEFAULT_SLICE_BUDGET_MS } from './api-limits.js';
import { FilterOptionsSchema } from '../factory/filter/index.js';

/** Limits a caller may set on a job; the network policy is the server's, never the caller's. */
export const CallerOptionsSchema = z
  .object({
    maxDepth: z.number().int().nonnegative().max(1_000),
    maxUrls: z.number().int().positive(),
    maxUrlsPerSitemap: z.number().int().positive().max(50_000),
    maxChildrenPerIndex: z.number().int().positive().max(50_000),
    maxSitemaps: z.number().int().positive().max(100_000),
    maxUrlLength: z.number().int().positive().max(8_192),
    maxUncompressedBytes: z.number().int().positive().max(52_428_800),
    maxDownloadBytes: z.number().int().positive().max(54_525_952),
    timeoutMs: z.number().int().positive().max(60_000),
    concurrency: z.number().int().positive().max(16),
    userAgent: z.string().min(1).max(200),
    /** The same entry filters as the library and the CLI (the wizard's "sub-tree" choice). */
    filter: FilterOptionsSchema,
  })
  .partial()
  .strict();
export type CallerOptions = z.infer<typeof CallerOptionsSchema>;

const budgetMs = z.number().int().positive().max(DEFAULT_SLICE_BUDGET_MS);

/** `POST /api/factory/estimate` body (or `?rootUrl=`). */
export const EstimateRequestSchema = z.object({ rootUrl: z.string().min(1).max(2_048) }).strict();

/** `POST /api/factory/discover` bodies: start a job, or continue / stop one. */
export const StartJobRequestSchema = z
  .object({
    rootUrl: z.string().min(1).max(2_048),
    options: CallerOptionsSchema.optional(),
    budgetMs: budgetMs.optional(),
    // Incremental re-sync: the job whose validators this one starts from (validated as a job id by the store).
    previousJobId: z.string().max(200).optional(),
  })
  .strict();
export const JobActionRequestSchema = z
  .object({ jobId: z.unknown(), action: z.enum(['continue', 'stop', 'retry']).default('continue'), budgetMs: budgetMs.optional() })
  .strict();

/** `GET /api/factory/discover?jobId=...[&shard=N]`. */
export const DiscoverQuerySchema = z
  .object({
    jobId: z.string().max(200),
    // Digits only: coercion would read `shard=` as shard 0.
    shard: z.string().regex(/^\d{1,8}$/, 'shard must be a whole number').transform(Number).optional(),
  })
  .strict();

/** `DELETE /api/factory/discover?jobId=...`. */
export const DeleteJobQuerySchema = z.object({ jobId: z.string().max(200) }).strict();
