// Short-lived signed links for the console's downloads: a browser navigation cannot send the bearer token, and the
// token itself must never sit in a URL (history, logs, referrers). An authenticated POST mints a link that names one
// site and expires soon; the GET it opens streams that site's URLs without the Authorization header.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { assertAuthorized } from './request.js';
import { parseSitesPath } from './sites-path.js';
import type { FactoryConfig } from '../config/factory-config.js';
import { RequestError } from '../core/errors.js';

/** How long a download link stays valid: enough to start the download at once, too short to share. */
export const DOWNLOAD_TOKEN_TTL_MS = 60_000;

/** The query parameter carrying the signed token (the access log redacts `token` values). */
export const DOWNLOAD_TOKEN_PARAM = 'downloadToken';

// A key of its own, derived from the API token: a download signature reveals nothing usable as a bearer token.
function signature(apiToken: string, siteId: string, expiresAt: number): string {
  const key = createHmac('sha256', apiToken).update('crawler-factory download link v1').digest();
  return createHmac('sha256', key).update(`${siteId}\n${expiresAt}`).digest('base64url');
}

/** A token for downloading `siteId`'s URLs until `now + DOWNLOAD_TOKEN_TTL_MS`. */
export function signDownloadToken(apiToken: string, siteId: string, now = Date.now()): { token: string; expiresAt: Date } {
  const expiresAt = now + DOWNLOAD_TOKEN_TTL_MS;
  return { token: `${expiresAt}.${signature(apiToken, siteId, expiresAt)}`, expiresAt: new Date(expiresAt) };
}

/** Throws `unauthorized` unless `token` was signed for `siteId` with `apiToken` and has not expired. */
export function assertDownloadToken(apiToken: string, siteId: string, token: string, now = Date.now()): void {
  const match = /^(\d{1,15})\.([A-Za-z0-9_-]{43})$/.exec(token);
  const expiresAt = Number(match?.[1]);
  const given = Buffer.from(match?.[2] ?? '', 'utf8');
  const expected = Buffer.from(match ? signature(apiToken, siteId, expiresAt) : '', 'utf8');
  const valid = match !== null && given.length === expected.length && timingSafeEqual(given, expected);
  if (!valid) throw new RequestError('unauthorized', 'invalid download link: ask for a new one');
  if (expiresAt <= now) throw new RequestError('unauthorized', 'download link expired: ask for a new one');
}

/**
 * Auth of the sites routes: the bearer token, or, for `GET .../sites/{siteId}/urls?downloadToken=...`, a download
 * token signed for that site. Without FACTORY_API_TOKEN the bearer rule alone applies (open locally, refused on Vercel).
 */
export function assertSitesAuthorized(request: Request, config: FactoryConfig): void {
  const url = new URL(request.url);
  const token = url.searchParams.get(DOWNLOAD_TOKEN_PARAM);
  if (token === null || request.method !== 'GET' || !config.apiToken) return assertAuthorized(request, config);
  const path = parseSitesPath(url.pathname);
  if (path.type !== 'urls') throw new RequestError('unauthorized', 'a download link opens only the URL export of its site');
  assertDownloadToken(config.apiToken, path.siteId, token);
}
