import { z } from 'zod';
import { DEFAULT_SYNC_SLICE_BUDGET_MS, START_SLICE_BUDGET_MS } from './api-limits.js';
import { deadlineStep } from './function-step.js';
import type { DispatcherSlot } from '../dispatch/dispatcher-slot.js';
import { parseQuery, readJsonBody } from './request.js';
import { errorResponse, json } from './responses.js';
import type { ServiceContext } from './service.js';
import { SITES_BASE, type SitesPath } from './sites-path.js';
import { RequestError } from '../core/errors.js';
import { ScheduleTextSchema } from '../inventory/schedule.js';
import type { Sync } from '../inventory/schemas.js';
import { deleteSite } from '../inventory/site-deletion.js';
import { createSite, getSite, SiteOptionsPatchSchema, SiteOptionsSchema, updateSite } from '../inventory/sites.js';
import { listSitePage, SiteListQuerySchema } from '../inventory/site-list.js';
import { advanceSync, startSync, stopSync, type AdvanceOptions, type SyncRuntime } from '../inventory/sync-driver.js';
import { runningSync, RunningSyncConflict } from '../inventory/running-sync.js';
import { getSync, getSyncDetail, listSyncs } from '../inventory/syncs.js';
import { getSitemapRecord, listSitemapPage, SitemapListQuerySchema } from '../inventory/sitemap-list.js';
import { URL_CSV_HEADER, urlCsvLine } from '../inventory/url-csv.js';
import { listUrls, streamUrls, UrlQuerySchema, urlHistory, type UrlQuery } from '../inventory/url-query.js';
import type { UrlRow } from '../inventory/schemas.js';
import { DOWNLOAD_TOKEN_PARAM, signDownloadToken } from './download-token.js';

/** `POST /api/factory/sites` body. */
export const NewSiteRequestSchema = z
  .object({
    rootUrl: z.string().min(1).max(2_048),
    siteId: z.string().max(200).optional(),
    options: SiteOptionsSchema.optional(),
    schedule: ScheduleTextSchema.optional(),
  })
  .strict();

// A body of bare options (`{"filter": ...}`, the shape of create's `options`) is read as `{"options": ...}`: no option is
// named `rootUrl`, `options` or `schedule`, so the two shapes cannot be confused.
function wrapBareOptions(body: unknown): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  const keys = Object.keys(body);
  return keys.length > 0 && !keys.some((key) => ['options', 'rootUrl', 'schedule'].includes(key)) ? { options: body } : body;
}

/**
 * `PATCH /api/factory/sites/{siteId}` body: a new root URL, options as on create (`null` removes one), a schedule
 * (`24h`, `off`, ...), or the options alone.
 */
export const SitePatchRequestSchema = z.preprocess(
  wrapBareOptions,
  z.object({ rootUrl: z.string().min(1).max(2_048).optional(), options: SiteOptionsPatchSchema.optional(), schedule: ScheduleTextSchema.optional() }).strict(),
);

/** Body of the sync calls that run a slice: the slice's budget (default half the function's time). */
export const SyncStepRequestSchema = z.object({ budgetMs: z.number().int().positive().max(DEFAULT_SYNC_SLICE_BUDGET_MS).optional() }).strict();
/** `POST .../sync`: a step's budget, and `full` to read every sitemap whole (no incremental re-sync). */
export const SyncStartRequestSchema = SyncStepRequestSchema.extend({ full: z.boolean().optional() }).strict();

/** The methods each sites route serves (405 with `Allow` for the others). */
const ALLOWED: Record<SitesPath['type'], readonly string[]> = {
  sites: ['GET', 'POST'],
  site: ['GET', 'PATCH', 'DELETE'],
  sync: ['POST'],
  'sync-stop': ['POST'],
  syncs: ['GET'],
  'sync-one': ['GET', 'POST'],
  urls: ['GET'],
  'urls-download': ['POST'],
  history: ['GET'],
  sitemaps: ['GET'],
  'sitemap-one': ['GET'],
};

/** The methods the sites function exports. */
export type SitesMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

// One slice for the caller; a long-lived process (`serve`) then keeps the sync going by itself.
async function advanceAndContinue(slices: DispatcherSlot, runtime: SyncRuntime, syncId: string, options: AdvanceOptions): Promise<Sync> {
  const sync = await advanceSync(runtime, syncId, options);
  if (sync.state === 'running') await slices.current().continueSync(runtime, syncId);
  return sync;
}

/** The formats a URL export streams in. */
const ExportFormatSchema = z.enum(['ndjson', 'csv']);

/**
 * `GET .../urls` query: the listing's filters, plus `format=ndjson|csv` (stream every row, as `Accept:
 * application/x-ndjson` does for NDJSON), `download=1` (as an attachment) and the signed `downloadToken` of a link.
 */
const UrlExportQuerySchema = UrlQuerySchema.extend({
  format: z.enum(['json', 'ndjson', 'csv']).optional(),
  download: z.enum(['1', 'true']).optional(),
  [DOWNLOAD_TOKEN_PARAM]: z.string().max(200).optional(),
}).strict();

/** `POST .../urls/download` body: the format, and the listing's filters as the GET query spells them. */
export const DownloadLinkRequestSchema = z
  .object({
    format: ExportFormatSchema,
    prefix: z.string().optional(),
    locale: z.string().optional(),
    changedSince: z.string().optional(),
    removed: z.enum(['true', 'false']).optional(),
  })
  .strict();

// An export, one row a line, read page by page (1000 rows a chunk): memory holds one page whatever the site's size.
function exportResponse(runtime: SyncRuntime, siteId: string, query: Omit<UrlQuery, 'limit'>, format: 'ndjson' | 'csv', attachment: boolean): Response {
  const rows = streamUrls(runtime.db, siteId, query);
  const line = format === 'csv' ? urlCsvLine : (row: UrlRow) => `${JSON.stringify(row)}\n`;
  const encoder = new TextEncoder();
  let header = format === 'csv' ? URL_CSV_HEADER : '';
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      let chunk = header;
      header = '';
      for (let i = 0; i < 1_000; i += 1) {
        const next = await rows.next();
        if (next.done) {
          if (chunk !== '') controller.enqueue(encoder.encode(chunk));
          controller.close();
          return;
        }
        chunk += line(next.value);
      }
      controller.enqueue(encoder.encode(chunk));
    },
    async cancel() {
      await rows.return(undefined);
    },
  });
  const headers: Record<string, string> = {
    'content-type': format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8',
    'cache-control': 'no-store',
  };
  if (attachment) {
    // siteIds are [a-z0-9._-]: safe in a quoted file name as they are.
    headers['content-disposition'] = `attachment; filename="${siteId}-urls.${format}"`;
    headers['referrer-policy'] = 'no-referrer';
  }
  return new Response(body, { headers });
}

async function urlsRoute(runtime: SyncRuntime, siteId: string, request: Request): Promise<Response> {
  const { format, download, [DOWNLOAD_TOKEN_PARAM]: _token, ...query } = parseQuery(request, UrlExportQuerySchema);
  await getSite(runtime.db, siteId);
  const wantsNdjson = format === undefined && (request.headers.get('accept') ?? '').includes('application/x-ndjson');
  const streamed = format === 'csv' || format === 'ndjson' ? format : wantsNdjson ? 'ndjson' : null;
  if (streamed === null) return json(await listUrls(runtime.db, siteId, query));
  const { limit: _limit, ...filters } = query;
  return exportResponse(runtime, siteId, filters, streamed, download !== undefined);
}

// A link the browser can open without the bearer token: signed for this site, valid DOWNLOAD_TOKEN_TTL_MS.
async function downloadLink(runtime: SyncRuntime, siteId: string, request: Request, apiToken: string | null): Promise<Response> {
  const { format, ...filters } = await readJsonBody(request, DownloadLinkRequestSchema);
  const checked = UrlQuerySchema.safeParse(filters);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    throw new RequestError('bad_request', `${issue?.path.join('.') || 'filter'}: ${issue?.message ?? 'invalid'}`);
  }
  await getSite(runtime.db, siteId);
  const params = new URLSearchParams(Object.entries(filters).filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== ''));
  params.set('format', format);
  params.set('download', '1');
  // Without FACTORY_API_TOKEN the API is open: the link needs no token (and there is no key to sign with).
  const signed = apiToken ? signDownloadToken(apiToken, siteId) : null;
  if (signed) params.set(DOWNLOAD_TOKEN_PARAM, signed.token);
  return json({ url: `${SITES_BASE}/${encodeURIComponent(siteId)}/urls?${params}`, expiresAt: signed?.expiresAt.toISOString() ?? null }, 201);
}

async function getRoute(path: SitesPath, request: Request, runtime: SyncRuntime): Promise<Response> {
  const { db } = runtime;
  switch (path.type) {
    case 'sites':
      return json(await listSitePage(db, parseQuery(request, SiteListQuerySchema)));
    case 'site':
      return json(await getSite(db, path.siteId));
    case 'syncs':
      await getSite(db, path.siteId);
      return json({ syncs: await listSyncs(db, path.siteId) });
    case 'sync-one':
      return json(await getSyncDetail(db, path.syncId, path.siteId));
    case 'urls':
      return urlsRoute(runtime, path.siteId, request);
    case 'history':
      return json({ url: path.url, history: await urlHistory(db, path.siteId, path.url) });
    case 'sitemaps':
      await getSite(db, path.siteId);
      return json(await listSitemapPage(db, path.siteId, parseQuery(request, SitemapListQuerySchema)));
    case 'sitemap-one': {
      await getSite(db, path.siteId);
      const sitemap = await getSitemapRecord(db, path.siteId, path.sitemapId);
      if (sitemap === null)
        throw new RequestError('not_found', `site ${path.siteId} has no sitemap ${path.sitemapId}: list them with GET ${SITES_BASE}/${path.siteId}/sitemaps`);
      return json(sitemap);
    }
    default:
      throw new Error(`no GET for ${path.type}`);
  }
}

async function postRoute(path: SitesPath, request: Request, runtime: SyncRuntime, context: ServiceContext): Promise<Response> {
  switch (path.type) {
    case 'urls-download':
      return downloadLink(runtime, path.siteId, request, context.config.apiToken);
    case 'sites': {
      const body = await readJsonBody(request, NewSiteRequestSchema);
      return json(await createSite(runtime.db, body, runtime.net), 201);
    }
    case 'sync': {
      const { budgetMs, full } = await readJsonBody(request, SyncStartRequestSchema);
      const sync = await startSync(runtime, path.siteId, { full: full === true });
      return json(await advanceAndContinue(context.slices, runtime, sync.syncId, deadlineStep(budgetMs ?? START_SLICE_BUDGET_MS, request.signal)), 201);
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
      return json(await advanceAndContinue(context.slices, runtime, path.syncId, deadlineStep(budgetMs ?? DEFAULT_SYNC_SLICE_BUDGET_MS, request.signal)));
    }
    default:
      throw new Error(`no POST for ${path.type}`);
  }
}

async function siteRoute(method: 'PATCH' | 'DELETE', path: Extract<SitesPath, { type: 'site' }>, request: Request, runtime: SyncRuntime): Promise<Response> {
  if (method === 'DELETE') return json(await deleteSite(runtime.db, path.siteId));
  const patch = await readJsonBody(request, SitePatchRequestSchema);
  return json(await updateSite(runtime.db, path.siteId, patch, runtime.net));
}

/** The ways on from a running sync over this API: one more slice of it, or stopping it. */
function httpWaysOn({ siteId, syncId }: RunningSyncConflict['running']): string {
  const base = `${SITES_BASE}/${siteId}`;
  return `continue it with POST ${base}/syncs/${syncId}, or stop it with POST ${base}/sync/stop`;
}

async function routeOf(method: SitesMethod, path: SitesPath, request: Request, context: ServiceContext): Promise<Response> {
  const runtime = await context.runtime();
  if (method === 'GET') return getRoute(path, request, runtime);
  if (method === 'POST') return postRoute(path, request, runtime, context);
  if (path.type !== 'site') throw new Error(`no ${method} for ${path.type}`);
  return siteRoute(method, path, request, runtime);
}

/**
 * Runs the route a sites path names; a method the route does not serve is a 405 `method_not_allowed` with `Allow`.
 * Whatever a running sync refuses (a second start, a change, a delete) says how to go on with this API.
 */
export async function sitesRoute(method: SitesMethod, path: SitesPath, request: Request, context: ServiceContext): Promise<Response> {
  const allowed = ALLOWED[path.type];
  if (!allowed.includes(method)) {
    return errorResponse('method_not_allowed', `method ${method} not allowed on this route: use ${allowed.join(', ')}`, null, { allow: allowed.join(', ') });
  }
  try {
    return await routeOf(method, path, request, context);
  } catch (error) {
    throw error instanceof RunningSyncConflict ? error.withWaysOn(httpWaysOn(error.running)) : error;
  }
}
