import { z } from 'zod';
import { DEFAULT_SYNC_SLICE_BUDGET_MS } from './api-limits.js';
import { inventoryDb } from './inventory-context.js';
import { readJsonBody } from './request.js';
import { json } from './responses.js';
import type { ServiceContext } from './service.js';
import type { SitesPath } from './sites-path.js';
import { RequestError } from '../factory/errors.js';
import { createSite, getSite, SiteOptionsSchema } from '../inventory/sites.js';
import { listSitePage, SiteListQuerySchema } from '../inventory/site-list.js';
import { advanceSync, startSync, stopSync, type AdvanceOptions, type SyncRuntime } from '../inventory/sync-driver.js';
import { adoptSync } from './background-syncs.js';
import type { Sync } from '../inventory/schemas.js';
import { getSync, listSyncs, runningSync } from '../inventory/syncs.js';
import { listUrls, streamUrls, UrlQuerySchema, urlHistory } from '../inventory/url-query.js';

/** `POST /api/factory/sites` body. */
export const NewSiteRequestSchema = z
  .object({ rootUrl: z.string().min(1).max(2_048), siteId: z.string().max(200).optional(), options: SiteOptionsSchema.optional() })
  .strict();

/** Body of the sync calls that run a slice: the slice's budget (default half the function's time). */
export const SyncStepRequestSchema = z.object({ budgetMs: z.number().int().positive().max(DEFAULT_SYNC_SLICE_BUDGET_MS).optional() }).strict();
/** `POST .../sync`: a step's budget, and `full` to read every sitemap whole (no incremental re-sync). */
export const SyncStartRequestSchema = SyncStepRequestSchema.extend({ full: z.boolean().optional() }).strict();

async function runtimeOf(context: ServiceContext): Promise<SyncRuntime> {
  return { db: await inventoryDb(), store: await context.store(), net: context.net };
}

// One slice for the caller; a long-lived process (`serve`) then keeps the sync going by itself.
async function advanceAndAdopt(runtime: SyncRuntime, syncId: string, options: AdvanceOptions): Promise<Sync> {
  const sync = await advanceSync(runtime, syncId, options);
  if (sync.state === 'running') adoptSync(runtime, syncId);
  return sync;
}

function urlQuery(request: Request) {
  return UrlQuerySchema.parse(Object.fromEntries(new URL(request.url).searchParams));
}

// NDJSON export: one row a line, read page by page, so memory holds one page whatever the site's size.
async function ndjsonResponse(runtime: SyncRuntime, siteId: string, request: Request): Promise<Response> {
  const { limit: _limit, ...query } = urlQuery(request);
  const rows = streamUrls(runtime.db, siteId, query);
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await rows.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(`${JSON.stringify(next.value)}\n`));
    },
    async cancel() {
      await rows.return(undefined);
    },
  });
  return new Response(body, { headers: { 'content-type': 'application/x-ndjson; charset=utf-8', 'cache-control': 'no-store' } });
}

async function getRoute(path: SitesPath, request: Request, context: ServiceContext): Promise<Response> {
  const runtime = await runtimeOf(context);
  const { db } = runtime;
  switch (path.type) {
    case 'sites':
      return json(await listSitePage(db, SiteListQuerySchema.parse(Object.fromEntries(new URL(request.url).searchParams))));
    case 'site':
      return json(await getSite(db, path.siteId));
    case 'syncs':
      await getSite(db, path.siteId);
      return json({ syncs: await listSyncs(db, path.siteId) });
    case 'sync-one':
      return json(await getSync(db, path.syncId, path.siteId));
    case 'urls':
      await getSite(db, path.siteId);
      if ((request.headers.get('accept') ?? '').includes('application/x-ndjson')) return ndjsonResponse(runtime, path.siteId, request);
      return json(await listUrls(db, path.siteId, urlQuery(request)));
    case 'history':
      return json({ url: path.url, history: await urlHistory(db, path.siteId, path.url) });
    default:
      throw methodNotAllowed(request, path);
  }
}

async function postRoute(path: SitesPath, request: Request, context: ServiceContext): Promise<Response> {
  const runtime = await runtimeOf(context);
  switch (path.type) {
    case 'sites': {
      const body = await readJsonBody(request, NewSiteRequestSchema);
      return json(await createSite(runtime.db, body), 201);
    }
    case 'sync': {
      const { budgetMs, full } = await readJsonBody(request, SyncStartRequestSchema);
      const sync = await startSync(runtime, path.siteId, { full: full === true });
      return json(await advanceAndAdopt(runtime, sync.syncId, { budgetMs: budgetMs ?? DEFAULT_SYNC_SLICE_BUDGET_MS, signal: request.signal }), 201);
    }
    case 'sync-stop': {
      await readJsonBody(request, z.object({}).strict());
      const running = await runningSync(runtime.db, path.siteId);
      if (!running) throw new RequestError('not_found', `site ${path.siteId} has no running sync`);
      return json(await stopSync(runtime, running.syncId, path.siteId));
    }
    case 'sync-one': {
      const { budgetMs } = await readJsonBody(request, SyncStepRequestSchema);
      await getSync(runtime.db, path.syncId, path.siteId);
      return json(await advanceAndAdopt(runtime, path.syncId, { budgetMs: budgetMs ?? DEFAULT_SYNC_SLICE_BUDGET_MS, signal: request.signal }));
    }
    default:
      throw methodNotAllowed(request, path);
  }
}

class MethodNotAllowed extends Error {
  constructor(readonly allow: string) {
    super('method not allowed');
  }
}

const ALLOWED: Record<SitesPath['type'], string> = {
  sites: 'GET, POST',
  site: 'GET',
  sync: 'POST',
  'sync-stop': 'POST',
  syncs: 'GET',
  'sync-one': 'GET, POST',
  urls: 'GET',
  history: 'GET',
};

function methodNotAllowed(_request: Request, path: SitesPath): MethodNotAllowed {
  return new MethodNotAllowed(ALLOWED[path.type]);
}

/** Runs the route a sites path names for GET or POST; another method (or one the route lacks) is a 405 with `Allow`. */
export async function sitesRoute(method: 'GET' | 'POST', path: SitesPath, request: Request, context: ServiceContext): Promise<Response> {
  try {
    return await (method === 'GET' ? getRoute(path, request, context) : postRoute(path, request, context));
  } catch (error) {
    if (!(error instanceof MethodNotAllowed)) throw error;
    return json({ error: { kind: 'bad_request', message: `method ${method} not allowed` } }, 405, { allow: error.allow });
  }
}
