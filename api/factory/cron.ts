import { handle, preflight } from '../../lib/http/handler.js';
import { json } from '../../lib/http/responses.js';

// Loaded on first use: `serve` imports every route at start, and the inventory's modules would slow that for all.
const cron = () => import('../../lib/http/cron.js');

/**
 * `GET /api/factory/cron` (Vercel cron, every 5 minutes; `Authorization: Bearer <CRON_SECRET>`) -> 200
 * `{started: [{siteId, syncId}], advanced: [{syncId, siteId, state}], skipped, failed}`: starts the due scheduled syncs
 * and runs one slice of each sync it started and of each running sync that has stalled.
 */
export async function GET(request: Request): Promise<Response> {
  const { assertCronAuthorized, cronTick } = await cron();
  return handle(request, async (context) => json(await cronTick(context, request.signal)), assertCronAuthorized);
}

/** CORS preflight (and `Allow`) for this route. */
export const OPTIONS = preflight(['GET']);
