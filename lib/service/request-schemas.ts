import { z } from 'zod';
import { DEFAULT_SLICE_BUDGET_MS } from './api-limits.js';
import { CallerOptionsSchema } from '../core/limits.js';

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
    jobId: z.string().max(200).optional(),
    // Without jobId: the page of the job listing (the `next` of the page before) and its size.
    cursor: z
      .string()
      .regex(/^\d{1,20}$/, 'cursor must be the next of the page before')
      .optional(),
    limit: z
      .string()
      .regex(/^\d{1,3}$/, 'limit must be a whole number from 1 to 200')
      .transform(Number)
      .pipe(z.number().int().min(1, 'limit must be a whole number from 1 to 200').max(200, 'limit must be a whole number from 1 to 200'))
      .optional(),
    // Digits only: coercion would read `shard=` as shard 0.
    shard: z
      .string()
      .regex(/^\d{1,8}$/, 'shard must be a whole number')
      .transform(Number)
      .optional(),
  })
  .strict();

/** `DELETE /api/factory/discover?jobId=...`. */
export const DeleteJobQuerySchema = z.object({ jobId: z.string().max(200) }).strict();
