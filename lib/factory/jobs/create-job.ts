import { z } from 'zod';
import { assertJobId, newJobId } from '../../store/job-id.js';
import type { JobStore, QueuedWork } from '../../store/job-store.js';
import { RequestError } from '../../core/errors.js';
import { assertHostAllowed, assertUrlAllowed } from '../fetch/index.js';
import { resolveWalkOptions, type WalkOptions, type WalkOptionsInput } from '../../core/limits.js';
import { isSiteRoot } from '../sitemap.js';
import { ValidatorsSchema, type JobStatus, type Validators } from '../../core/types.js';
import { parseSiteUrl } from '../url/site-url.js';
import { identityKey } from '../url/url-identity.js';
import { getJobStatus } from './job-control.js';

/**
 * A job to start: a site root (discovered first; any other URL is read as a sitemap) or sitemap URLs, and limits.
 * `options.net` checks the start URLs only: it is not stored; every slice gets the deployment's policy (runSlice `net`).
 */
export interface CreateJobInput {
  rootUrl?: string;
  sitemapUrls?: string[];
  options?: WalkOptionsInput;
  /** Incremental re-sync: start from this job's validators (unchanged sitemaps are skipped or asked for conditionally). */
  previousJobId?: string;
  /** Incremental re-sync from validators kept elsewhere (the inventory); at most `maxSitemaps` of them. */
  previous?: Validators;
  /** The id to create the job under (a caller's idempotency key, derived by `idempotentJobId`); a new random one if absent. */
  jobId?: string;
}

/** Validators sent to the store per call: bounded request size (Upstash caps request bodies). */
const SEED_CHUNK = 500;

/** The validators a new job starts from: given inline, or what the previous job kept (which must exist: a typo would silently read everything). */
async function previousOf(store: JobStore, input: CreateJobInput, options: WalkOptions): Promise<Validators> {
  if (input.previous !== undefined && input.previousJobId !== undefined)
    throw new RequestError('bad_request', 'give either previousJobId or previous validators, not both');
  const previous = input.previousJobId === undefined ? (input.previous ?? {}) : (await readPreviousJob(store, input.previousJobId)).validators;
  const parsed = ValidatorsSchema.safeParse(previous);
  if (!parsed.success) throw new RequestError('bad_request', `invalid previous validators: ${z.prettifyError(parsed.error)}`);
  if (Object.keys(parsed.data).length > options.maxSitemaps)
    throw new RequestError('bad_request', `more previous validators than maxSitemaps (${options.maxSitemaps})`);
  return parsed.data;
}

async function readPreviousJob(store: JobStore, jobId: string) {
  await store.readStatus(jobId);
  return store.readResync(jobId);
}

async function seedPrevious(store: JobStore, jobId: string, validators: Validators): Promise<void> {
  const entries = Object.entries(validators);
  for (let start = 0; start < entries.length; start += SEED_CHUNK)
    await store.seedPrevious(jobId, Object.fromEntries(entries.slice(start, start + SEED_CHUNK)));
}

const InputSchema = z.union([
  z.object({ rootUrl: z.string().min(1).max(2_048), sitemapUrls: z.undefined().optional() }),
  z.object({ rootUrl: z.undefined().optional(), sitemapUrls: z.array(z.string().min(1).max(2_048)).min(1).max(1_000) }),
]);

/** Where a job starts: its first work, and whether that work is the job's root sitemaps. */
interface JobStart {
  rootUrl: string | null;
  sitemapUrls: string[];
  items: QueuedWork[];
  roots: boolean;
}

function planStart(input: CreateJobInput, options: WalkOptions): JobStart {
  const parsed = InputSchema.safeParse({ rootUrl: input.rootUrl, sitemapUrls: input.sitemapUrls });
  if (!parsed.success) throw new RequestError('bad_request', 'give either rootUrl or a non-empty sitemapUrls list');
  const { rootUrl, sitemapUrls } = parsed.data;
  const urls = (rootUrl ? [rootUrl] : (sitemapUrls ?? [])).map((url) => checkedUrl(url, options));
  if (rootUrl && isSiteRoot(rootUrl)) {
    return { rootUrl: urls[0] ?? rootUrl, sitemapUrls: [], items: [{ key: null, item: { type: 'discover', rootUrl: urls[0] ?? rootUrl } }], roots: false };
  }
  const items = urls.map((url) => ({ key: identityKey(url), item: { type: 'sitemap' as const, ref: { url, depth: 0, parent: null } } }));
  return { rootUrl: rootUrl ?? null, sitemapUrls: urls, items, roots: true };
}

function firstUrl(work: QueuedWork): string {
  return work.item.type === 'sitemap' ? work.item.ref.url : work.item.rootUrl;
}

// Refused here (invalid_url, blocked_ssrf) so a caller learns at once, not from a failed job later.
function checkedUrl(url: string, options: WalkOptions): string {
  const parsed = parseSiteUrl(url, options.net);
  assertUrlAllowed(parsed, options.net);
  return parsed.href;
}

function resolveOptions(input: WalkOptionsInput | undefined): WalkOptions {
  try {
    return resolveWalkOptions(input ?? {});
  } catch (cause) {
    const detail = cause instanceof z.ZodError ? z.prettifyError(cause) : String(cause);
    throw new RequestError('bad_request', `invalid options: ${detail}`, { cause });
  }
}

/**
 * Creates a resumable discovery job and returns its first status; the work happens in runSlice calls.
 * The job id is issued here (random, URL-safe). Throws `bad_request`, `invalid_url` or `blocked_ssrf`.
 */
export async function createJob(store: JobStore, input: CreateJobInput): Promise<JobStatus> {
  const options = resolveOptions(input.options);
  const start = planStart(input, options);
  // A scope filter compares with the job's root, stored with the job so every slice judges alike.
  options.filter.scopeRoot ??= start.rootUrl ?? start.sitemapUrls[0] ?? null;
  // Names are checked with DNS too (a host that resolves to loopback is refused now, not by a failed job later).
  await Promise.all([...new Set(start.items.map(firstUrl))].map((url) => assertHostAllowed(new URL(url), options.net)));
  const previous = await previousOf(store, input, options);
  const jobId = input.jobId === undefined ? newJobId() : assertJobId(input.jobId);
  // The network policy checked the start URLs above; it is the deployment's, so it is not kept with the job.
  const { net: _net, ...limits } = options;
  const count = Object.keys(previous).length;
  const resync = { ...(input.previousJobId === undefined ? {} : { previousJobId: input.previousJobId }), ...(count > 0 ? { previousSitemaps: count } : {}) };
  const meta = { jobId, rootUrl: start.rootUrl, sitemapUrls: start.sitemapUrls, options: limits, createdAt: new Date().toISOString(), ...resync };
  await store.createJob({ meta, items: start.items, roots: start.roots });
  // Before the first slice: a crash half-way leaves fewer validators, so more is read, never less.
  await seedPrevious(store, jobId, previous);
  return getJobStatus(store, jobId);
}
