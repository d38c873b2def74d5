import { z } from 'zod';
import { DEFAULT_SLICE_BUDGET_MS, DEFAULT_SYNC_SLICE_BUDGET_MS, SLICE_HARD_LIMIT_MS } from './api-limits.js';
import { deadlineStep, sliceStep, type DeadlineStep } from './function-step.js';
import { handle } from './handler.js';
import { parseJsonText, readBodyText } from './request.js';
import { json } from './responses.js';
import type { ServiceContext, ServiceSource } from './service.js';
import { ConfigError, type FactoryConfig } from '../config/factory-config.js';
import { RequestError } from '../core/errors.js';
import type { JobStatus } from '../core/types.js';
import { runSlice } from '../factory/jobs/run-slice.js';
import { stopJob } from '../factory/jobs/job-control.js';
import { FailureCallbackSchema, SliceMessageSchema, type JobSliceMessage, type SliceMessage, type SyncSliceMessage } from '../dispatch/qstash/slice-message.js';
import { SIGNATURE_HEADER, verifyQStashSignature } from '../dispatch/qstash/signature.js';
import { advanceSync, failSync } from '../inventory/sync-driver.js';
import { claimSlice, releaseSlice, sliceTarget } from '../inventory/sync-slices.js';
import { createLogger } from '../utils/logger.js';

const log = createLogger('http:queued-slices');

/** A failure callback carries the failed call's answer and the message's body, base64: larger than a request body here. */
const MAX_CALLBACK_BYTES = 256 * 1024;

/** The part of the failed call's answer kept in the sync's message. */
const MAX_REASON_CHARS = 300;

/** Reads the body of a call from QStash, verifies its signature with the deployment's keys (401 otherwise), and parses it. */
async function signedBody<S extends z.ZodType>(request: Request, config: FactoryConfig, schema: S, maxBytes?: number): Promise<z.output<S>> {
  const signature = request.headers.get(SIGNATURE_HEADER);
  if (signature === null) throw new RequestError('unauthorized', `missing ${SIGNATURE_HEADER} header: only QStash may call this route`);
  if (config.qstashSigning === null) {
    throw new ConfigError('QSTASH_CURRENT_SIGNING_KEY', 'QSTASH_CURRENT_SIGNING_KEY and QSTASH_NEXT_SIGNING_KEY are not set: no QStash call can be verified');
  }
  const text = await readBodyText(request, maxBytes);
  await verifyQStashSignature(config.qstashSigning, signature, text);
  return parseJsonText(text, schema);
}

/**
 * `POST /api/factory/slice` (QStash, signed) `{syncId, slice}` or `{jobId, slice}` -> 200 `{syncId|jobId, slice, ran,
 * state}`: claims the slice number and runs one slice of the sync or discover job, then publishes the next while it
 * runs. A number already claimed (a repeated delivery, or one the cron re-drive overtook) or a sync or job that has
 * ended runs nothing (`ran: false`). A slice that fails gives its number back and answers the error, so QStash's
 * retry can run it.
 */
async function runQueuedSlice(context: ServiceContext, request: Request): Promise<Response> {
  const message = await signedBody(request, context.config, SliceMessageSchema);
  return 'syncId' in message ? runSyncSlice(context, message, request.signal) : runJobSlice(context, message, request.signal);
}

// A queued slice's budget: the configured one, never more than the default (the function's time is fixed).
function queuedBudgetMs(context: ServiceContext, defaultMs: number): number {
  return Math.min(context.config.queuedSliceBudgetMs ?? defaultMs, defaultMs);
}

// Runs a numbered slice once: claims its number, runs it, and gives the number back when the run throws, so QStash's
// retry can claim it again. Null when the number was taken (a repeated delivery) or its sync or job has ended.
async function runClaimed<T>(claim: () => Promise<boolean>, release: () => Promise<void>, run: () => Promise<T>): Promise<T | null> {
  if (!(await claim())) return null;
  try {
    return await run();
  } catch (error) {
    await release().catch(() => undefined);
    throw error;
  }
}

async function runSyncSlice(context: ServiceContext, { syncId, slice }: SyncSliceMessage, signal: AbortSignal): Promise<Response> {
  const runtime = await context.runtime();
  const sync = await runClaimed(
    () => claimSlice(runtime.db, syncId, slice),
    () => releaseSlice(runtime.db, syncId, slice),
    () => advanceSync(runtime, syncId, { ...sliceStep(queuedBudgetMs(context, DEFAULT_SYNC_SLICE_BUDGET_MS), signal), workerId: 'qstash' }),
  );
  if (sync === null) {
    log.info({ event: 'queued_slice_skipped', syncId, slice }, 'slice already claimed, or the sync has ended');
    return json({ syncId, slice, ran: false });
  }
  if (sync.state === 'running') await context.slices.current().continueSync(runtime, syncId);
  return json({ syncId, slice, ran: true, state: sync.state });
}

async function runJobSlice(context: ServiceContext, { jobId, slice }: JobSliceMessage, signal: AbortSignal): Promise<Response> {
  const store = await context.store();
  const status = await runClaimed(
    () => store.claimSlice(jobId, slice),
    () => store.releaseSlice(jobId, slice),
    () => advanceJob(context, jobId, deadlineStep(queuedBudgetMs(context, DEFAULT_SLICE_BUDGET_MS), signal)),
  );
  if (status === null) {
    log.info({ event: 'queued_slice_skipped', jobId, slice }, 'slice already claimed, or the job has ended');
    return json({ jobId, slice, ran: false });
  }
  return json({ jobId, slice, ran: true, state: status.state });
}

/**
 * One slice of a discover job within the deployment's hard limit (the discover route's and QStash's), then, when this
 * deployment queues slices (QStash), the next one queued while the job runs, so it advances with nobody polling. A
 * stalled job waits for an operator's retry: queuing again would only spin.
 */
export async function advanceJob(context: ServiceContext, jobId: string, step: DeadlineStep): Promise<JobStatus> {
  const store = await context.store();
  const status = await runSlice(store, jobId, { budgetMs: step.budgetMs, signal: step.signal, net: context.net, hardLimitMs: SLICE_HARD_LIMIT_MS });
  if (status.state === 'running' && status.stalled === null) await context.slices.current().continueJob?.(store, jobId);
  return status;
}

// Why the slice failed, from its last answer: our JSON error's message when it is one, else the start of the body.
function failureReason(message: SliceMessage, failure: z.infer<typeof FailureCallbackSchema>): string {
  const text = Buffer.from(failure.body ?? '', 'base64').toString('utf8');
  const parsed = z.object({ error: z.object({ kind: z.string(), message: z.string() }) }).safeParse(safeJson(text));
  const detail = parsed.success ? `${parsed.data.error.kind}: ${parsed.data.error.message}` : text.trim();
  const retries = failure.retried === undefined ? '' : ` after ${failure.retried} retries`;
  return `slice ${message.slice} failed${retries} (QStash gave up): HTTP ${failure.status}${detail ? `: ${detail}` : ''}`.slice(0, MAX_REASON_CHARS);
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/**
 * `POST /api/factory/slice-failed` (QStash's failure callback, signed) -> 200 `{syncId|jobId, slice, failed, state?}`:
 * QStash gave up on a slice after its retries; a sync ends `failed` with the reason (status and error of the last
 * try), a discover job is stopped (what it found stays readable) and the reason logged. A sync or job that has ended,
 * or that a later slice has taken on since (the cron's re-drive, a client's continue), is left as it is.
 */
async function failQueuedSlice(context: ServiceContext, request: Request): Promise<Response> {
  const failure = await signedBody(request, context.config, FailureCallbackSchema, MAX_CALLBACK_BYTES);
  const message = parseJsonText(Buffer.from(failure.sourceBody, 'base64').toString('utf8'), SliceMessageSchema);
  const reason = failureReason(message, failure);
  if ('jobId' in message) {
    const store = await context.store();
    if ((await store.lastSlice(message.jobId)) >= message.slice) return json({ ...message, failed: false });
    const status = await stopJob(store, message.jobId);
    log.warn({ event: 'queued_slice_failed', ...message, reason }, 'QStash gave up on a slice: the job is stopped');
    return json({ ...message, failed: true, state: status.state });
  }
  const db = await context.inventory();
  const target = await sliceTarget(db, message.syncId);
  if (target === null || target.slices >= message.slice) return json({ ...message, failed: false });
  const sync = await failSync(db, () => context.store(), message.syncId, reason);
  log.warn({ event: 'queued_slice_failed', ...message, reason }, 'QStash gave up on a slice: the sync ends failed');
  return json({ ...message, failed: true, state: sync.state });
}

// QStash's routes take no bearer token: each call is verified by its signature instead, once its body is read.
const bySignature = (): void => undefined;

/** The handler of `POST /api/factory/slice` (see runQueuedSlice). */
export function sliceRoute(service: ServiceSource, request: Request): Promise<Response> {
  return handle(service, request, (context) => runQueuedSlice(context, request), bySignature);
}

/** The handler of `POST /api/factory/slice-failed` (see failQueuedSlice). */
export function sliceFailedRoute(service: ServiceSource, request: Request): Promise<Response> {
  return handle(service, request, (context) => failQueuedSlice(context, request), bySignature);
}
