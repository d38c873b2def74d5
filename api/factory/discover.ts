import { isFactoryError, RequestError, type JobStatus } from '../../lib/index.js';
import { createJob, getJobStatus, readJobShard, retryStalledJob, stopJob } from '../../lib/factory/jobs/index.js';
import {
  DEFAULT_SLICE_BUDGET_MS,
  advanceJob,
  deadlineStep,
  handle,
  preflight,
  parseQuery,
  readJsonBody,
  DeleteJobQuerySchema,
  DiscoverQuerySchema,
  JobActionRequestSchema,
  StartJobRequestSchema,
  json,
  serviceFromEnvironment,
  type ServiceContext,
  type ServiceSource,
} from '../../lib/service/index.js';
import { assertJobId, idempotentJobId, jobNotFound, type JobStore } from '../../lib/store/index.js';
import { z } from 'zod';

// `request.signal` aborts when the server shuts down (`serve` on SIGTERM): the slice then commits what it
// read, releases its leases and answers.

// An `Idempotency-Key` header: what a client sends on a start it may retry (1 to 255 visible ASCII characters).
const IdempotencyKeySchema = z
  .string()
  .regex(/^[\x21-\x7e]{1,255}$/, 'Idempotency-Key: expected 1 to 255 visible ASCII characters (a UUID, say)')
  .nullable();

// A job's status, or null when the store holds no such job (never made, expired or deleted).
function statusOrNull(store: JobStore, jobId: string): Promise<JobStatus | null> {
  return getJobStatus(store, jobId).catch((error: unknown) => {
    if (isFactoryError(error) && error.kind === 'not_found') return null;
    throw error;
  });
}

// The job an earlier start with this key created, or null; the same key for another root is a `conflict`.
async function startedBefore(store: JobStore, jobId: string, rootUrl: string): Promise<JobStatus | null> {
  const status = await statusOrNull(store, jobId);
  if (status === null) return null;
  const meta = await store.getMeta(jobId);
  if (meta.rootUrl !== null && URL.canParse(rootUrl) && meta.rootUrl !== new URL(rootUrl).href)
    throw new RequestError('conflict', `this Idempotency-Key started job ${jobId} of ${meta.rootUrl}: use a new key for ${rootUrl}`);
  return status;
}

/**
 * Starts a job (201) and runs its first slice within the budget; with QStash, its next slice is queued. With an
 * `Idempotency-Key`, a start retried after a lost answer gets the job the first one created (200, its status now).
 */
async function start(body: z.infer<typeof StartJobRequestSchema>, key: string | null, context: ServiceContext, signal: AbortSignal): Promise<Response> {
  const store = await context.store();
  const jobId = key === null ? undefined : idempotentJobId(key);
  const previous = body.previousJobId === undefined ? {} : { previousJobId: body.previousJobId };
  const input = { rootUrl: body.rootUrl, options: { ...body.options, net: context.net }, ...previous, ...(jobId === undefined ? {} : { jobId }) };
  let created: JobStatus;
  try {
    created = await createJob(store, input);
  } catch (error) {
    // The store refuses a second job under the key's id (a retry, or two tries at once): the first one's job answers.
    const earlier = jobId !== undefined && isFactoryError(error) && error.kind === 'conflict' ? await startedBefore(store, jobId, body.rootUrl) : null;
    if (earlier === null) throw error;
    return json(earlier);
  }
  return json(await advanceJob(context, created.jobId, deadlineStep(body.budgetMs ?? DEFAULT_SLICE_BUDGET_MS, signal)), 201);
}

/** Continues (one slice), retries a stalled job's stuck sitemaps then continues, or stops a job: 200 JobStatus. */
async function act(body: z.infer<typeof JobActionRequestSchema>, context: ServiceContext, signal: AbortSignal): Promise<Response> {
  const jobId = assertJobId(body.jobId);
  const store = await context.store();
  if (body.action === 'stop') return json(await stopJob(store, jobId));
  if (body.action === 'retry') await retryStalledJob(store, jobId);
  return json(await advanceJob(context, jobId, deadlineStep(body.budgetMs ?? DEFAULT_SLICE_BUDGET_MS, signal)));
}

/**
 * `POST /api/factory/discover`: `{"rootUrl", "options"?, "budgetMs"?}` starts (an `Idempotency-Key` header makes a
 * retried start find its job); `{"jobId", "action"?, "budgetMs"?}` continues, retries (a stalled job) or stops.
 */
function onPost(service: ServiceSource, request: Request): Promise<Response> {
  return handle(service, request, async (context) => {
    const body = await readJsonBody(request, z.record(z.string(), z.unknown()));
    if ('jobId' in body) return act(JobActionRequestSchema.parse(body), context, request.signal);
    const key = IdempotencyKeySchema.safeParse(request.headers.get('idempotency-key'));
    if (!key.success) throw new RequestError('bad_request', key.error.issues[0]?.message ?? 'invalid Idempotency-Key');
    return start(StartJobRequestSchema.parse(body), key.data, context, request.signal);
  });
}

/** Jobs a listing page holds unless the caller asks for another number (at most 200). */
const DEFAULT_LIST_LIMIT = 50;

// A page of the jobs this deployment's store holds, with their status; a job deleted meanwhile is left out.
async function listJobs(store: JobStore, cursor: string, limit: number): Promise<{ jobs: JobStatus[]; next: string | null }> {
  const page = await store.listJobIds(cursor, limit);
  const statuses = await Promise.all(page.jobIds.map((jobId) => statusOrNull(store, jobId)));
  return { jobs: statuses.filter((status): status is JobStatus => status !== null), next: page.next };
}

/**
 * `GET /api/factory/discover` -> `{jobs, next}`: the jobs the store holds, a page at a time (`?cursor=<next>&limit=`;
 * a page may hold fewer than `limit`: follow `next` until it is null). `?jobId=` -> JobStatus; `&shard=N` ->
 * `{"jobId","shard","urls"}`.
 */
function onGet(service: ServiceSource, request: Request): Promise<Response> {
  return handle(service, request, async (context) => {
    const query = parseQuery(request, DiscoverQuerySchema);
    const store = await context.store();
    if (query.jobId === undefined && query.shard !== undefined) throw new RequestError('bad_request', 'shard needs the jobId of its job');
    if (query.jobId !== undefined && (query.cursor !== undefined || query.limit !== undefined))
      throw new RequestError('bad_request', 'cursor and limit page the job listing: give them without jobId');
    if (query.jobId === undefined) return json(await listJobs(store, query.cursor ?? '0', query.limit ?? DEFAULT_LIST_LIMIT));
    const jobId = assertJobId(query.jobId);
    if (query.shard === undefined) return json(await getJobStatus(store, jobId));
    const shard = await readJobShard(store, jobId, query.shard);
    if (!shard) throw new RequestError('not_found', `job ${jobId} has no shard ${query.shard} (yet)`);
    return json(shard);
  });
}

/** `DELETE /api/factory/discover?jobId=` -> 200 `{"jobId","deleted":true}` once the job and its shards are gone; 404 if unknown. */
function onDelete(service: ServiceSource, request: Request): Promise<Response> {
  return handle(service, request, async (context) => {
    const jobId = assertJobId(parseQuery(request, DeleteJobQuerySchema).jobId);
    const store = await context.store();
    if (!(await store.deleteJob(jobId))) throw jobNotFound(jobId);
    return json({ jobId, deleted: true });
  });
}

/** The route's handlers (and its CORS preflight), bound to the context `service` hands out: `serve` and tests bind their own. */
export function routes(service: ServiceSource) {
  return {
    POST: (request: Request) => onPost(service, request),
    GET: (request: Request) => onGet(service, request),
    DELETE: (request: Request) => onDelete(service, request),
    OPTIONS: preflight(service, ['GET', 'POST', 'DELETE']),
  };
}

/** What Vercel calls: the handlers bound to this process's service, made from its environment on the first request. */
export const { POST, GET, DELETE, OPTIONS } = routes(serviceFromEnvironment);
