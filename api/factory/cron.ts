import { assertCronAuthorized, cronTick, handle, json, preflight, serviceFromEnvironment, type ServiceSource } from '../../lib/service/index.js';

/**
 * `GET /api/factory/cron` (Vercel cron, every 5 minutes; `Authorization: Bearer <CRON_SECRET>`) -> 200
 * `{started: [{siteId, syncId}], advanced: [{syncId, siteId, state}], skipped, failed}`: starts the due scheduled syncs
 * and runs one slice of each sync it started and of each running sync that has stalled.
 */
function onGet(service: ServiceSource, request: Request): Promise<Response> {
  return handle(service, request, async (context) => json(await cronTick(context, request.signal)), assertCronAuthorized);
}

/** The route's handlers (and its CORS preflight), bound to the context `service` hands out: `serve` and tests bind their own. */
export function routes(service: ServiceSource) {
  return { GET: (request: Request) => onGet(service, request), OPTIONS: preflight(service, ['GET']) };
}

/** What Vercel calls: the handlers bound to this process's service, made from its environment on the first request. */
export const { GET, OPTIONS } = routes(serviceFromEnvironment);
