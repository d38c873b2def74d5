import { assertCronAuthorized, cronTick, handle, json, preflight } from '../../lib/http/index.js';

/**
 * `GET /api/factory/cron` (Vercel cron, every 5 minutes; `Authorization: Bearer <CRON_SECRET>`) -> 200
 * `{started: [{siteId, syncId}], advanced: [{syncId, siteId, state}], skipped, failed}`: starts the due scheduled syncs
 * and runs one slice of each sync it started and of each running sync that has stalled.
 */
export async function GET(request: Request): Promise<Response> {
  return handle(request, async (context) => json(await cronTick(context, request.signal)), assertCronAuthorized);
}

/** CORS preflight (and `Allow`) for this route. */
export const OPTIONS = preflight(['GET']);
