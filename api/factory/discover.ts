import { RequestError } from '../../lib/index.js';
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
  type ServiceContext,
} from '../../lib/http/index.js';
import { assertJobId, jobNotFound } from '../../lib/store/index.js';
import { z } from 'zod';

// `request.signal` aborts when the server shuts down (`serve` on SIGTERM): the slice then commits what it
// read, releases its leases and answers.

/** Starts a job (201) and runs its first slice within the budget; with QStash, its next slice is queued. */
async function start(body: z.infer<typeof StartJobRequestSchema>, context: ServiceContext, signal: AbortSignal): Promise<Response> {
  const store = await context.store();
  const previous = body.previousJobId === undefined ? {} : { previousJobId: body.previousJobId };
  const created = await createJob(store, { rootUrl: body.rootUrl, options: { ...body.options, net: context.net }, ...previous });
  return json(await advanceJob(store, created.jobId, deadlineStep(body.budgetMs ?? DEFAULT_SLICE_BUDGET_MS, signal), context.net), 201);
}

/** Continues (one slice), retries a stalled job's stuck sitemaps then continues, or stops a job: 200 JobStatus. */
async function act(body: z.infer<typeof JobActionRequestSchema>, context: ServiceContext, signal: AbortSignal): Promise<Response> {
  const jobId = assertJobId(body.jobId);
  const store = await context.store();
  if (body.action === 'stop') return json(await stopJob(store, jobId));
  if (body.action === 'retry') await retryStalledJob(store, jobId);
  return json(await advanceJob(store, jobId, deadlineStep(body.budgetMs ?? DEFAULT_SLICE_BUDGET_MS, signal), context.net));
}

/**
 * `POST /api/factory/discover`: `{"rootUrl", "options"?, "budgetMs"?}` starts; `{"jobId", "action"?, "budgetMs"?}` continues, retries
 * (a stalled job) or stops.
 */
export function POST(request: Request): Promise<Response> {
  return handle(request, async (context) => {
    const body = await readJsonBody(request, z.record(z.string(), z.unknown()));
    if ('jobId' in body) return act(JobActionRequestSchema.parse(body), context, request.signal);
    return start(StartJobRequestSchema.parse(body), context, request.signal);
  });
}

/** `GET /api/factory/discover?jobId=` -> JobStatus; `&shard=N` -> `{"jobId","shard","urls"}`. */
export function GET(request: Request): Promise<Response> {
  return handle(request, async (context) => {
    const query = parseQuery(request, DiscoverQuerySchema);
    const jobId = assertJobId(query.jobId);
    const store = await context.store();
    if (query.shard === undefined) return json(await getJobStatus(store, jobId));
    const shard = await readJobShard(store, jobId, query.shard);
    if (!shard) throw new RequestError('not_found', `job ${jobId} has no shard ${query.shard} (yet)`);
    return json(shard);
  });
}

/** `DELETE /api/factory/discover?jobId=` -> 200 `{"jobId","deleted":true}` once the job and its shards are gone; 404 if unknown. */
export function DELETE(request: Request): Promise<Response> {
  return handle(request, async (context) => {
    const jobId = assertJobId(parseQuery(request, DeleteJobQuerySchema).jobId);
    const store = await context.store();
    if (!(await store.deleteJob(jobId))) throw jobNotFound(jobId);
    return json({ jobId, deleted: true });
  });
}

/** CORS preflight (and `Allow`) for this route. */
export const OPTIONS = preflight(['GET', 'POST', 'DELETE']);
