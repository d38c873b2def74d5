import { z } from 'zod';
import { JobIdSchema } from '../../store/job-id.js';

/** The routes QStash calls back: a slice to run, and the failure callback of a slice it gave up on. */
export const SLICE_ROUTE = '/api/factory/slice';
export const SLICE_FAILED_ROUTE = '/api/factory/slice-failed';

const SliceNumberSchema = z.number().int().positive();

/** The body of a queued sync slice: the sync, and the number of the slice (the sync's last claimed slice plus one). */
export const SyncSliceMessageSchema = z.object({ syncId: JobIdSchema, slice: SliceNumberSchema }).strict();
/** The body of a queued discover-job slice: the job, and the number of the slice (the job's last claimed slice plus one). */
export const JobSliceMessageSchema = z.object({ jobId: JobIdSchema, slice: SliceNumberSchema }).strict();
/** What `POST /api/factory/slice` runs: a slice of a sync or of a discover job. */
export const SliceMessageSchema = z.union([SyncSliceMessageSchema, JobSliceMessageSchema]);
export type SyncSliceMessage = z.infer<typeof SyncSliceMessageSchema>;
export type JobSliceMessage = z.infer<typeof JobSliceMessageSchema>;
export type SliceMessage = z.infer<typeof SliceMessageSchema>;

/** One deduplication id per (sync or job, slice): QStash accepts a slice once however often it is published. */
export function sliceDeduplicationId(message: SliceMessage): string {
  return 'syncId' in message ? `sync-${message.syncId}-slice-${message.slice}` : `job-${message.jobId}-slice-${message.slice}`;
}

/** The flow-control key of a site's slices: its host (with its port), in the characters a key may hold. */
export function hostFlowControlKey(rootUrl: string): string {
  return `host-${new URL(rootUrl).host.toLowerCase().replace(/[^a-z0-9.-]/g, '_')}`;
}

/**
 * What QStash posts to a failure callback (the fields read here; it sends more): the last answer's status and base64
 * body, its retries, and the base64 body of the message that failed.
 */
export const FailureCallbackSchema = z.object({
  status: z.number().int(),
  body: z.string().optional(),
  retried: z.number().int().nonnegative().optional(),
  maxRetries: z.number().int().nonnegative().optional(),
  sourceMessageId: z.string().optional(),
  sourceBody: z.string(),
});
export type FailureCallback = z.infer<typeof FailureCallbackSchema>;
