import type { Dispatcher } from 'undici';
import { FetchError } from '../../core/errors.js';
import { printableUrl } from '../url/site-url.js';
import { createLogger } from '../../utils/logger.js';
import { agentFor, proxyAgentFor } from './agent.js';
import { request as sendTo } from './undici-parts.js';
import { proxyFor } from './proxy.js';
import { sleep, waitForSlot } from './rate-gate.js';
import { retryAfterMs, RETRY_AFTER_STATUSES } from './retry-after.js';
import { assertHostAllowed } from './resolve-target.js';
import { startDeadline, type Deadline } from './deadline.js';
import { toFetchFailure } from './fetch-errors.js';
import { cappedBody, DRAIN_LIMIT, type RawBody } from './response-body.js';
import { responseHeaders } from './response-headers.js';
import { assertUrlAllowed } from './ssrf-guard.js';
import { RedirectDeclined, type RequestOptions, type SafeResponse } from './types.js';

const log = createLogger('factory:fetch');

/** Statuses that send us elsewhere; the next hop is checked by the SSRF guard like the first. */
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** Request headers a caller adds beyond user agent and accept (e.g. accept-encoding for sitemaps). */
export type ExtraHeaders = Readonly<Record<string, string>>;

/** GET or HEAD `url` under the SSRF guard, one deadline and the download cap; redirects followed by hand. */
export async function safeRequest(url: string, options: RequestOptions): Promise<SafeResponse> {
  return sendRequest(url, options, {});
}

/** `safeRequest` with extra request headers, for callers inside this module. */
export async function sendRequest(url: string, options: RequestOptions, extra: ExtraHeaders): Promise<SafeResponse> {
  let current = parseUrl(url);
  const deadline = startDeadline(options.timeoutMs, options.signal);
  const startedAt = Date.now();
  let waits = 0;
  try {
    for (let redirects = 0; ; redirects += 1) {
      assertUrlAllowed(current, options.net);
      const raw = await dispatch(current, options, { extra, deadline });
      if (waits < (options.retries ?? 0) && (await waitedForRetry(raw, { url: current, options, deadline, startedAt }))) {
        waits += 1;
        redirects -= 1;
        continue;
      }
      const next = redirectTarget(raw, current);
      if (next === null) return toSafeResponse(raw, { url: current.href, redirects, deadline, options });
      await raw.body.dump({ limit: DRAIN_LIMIT, signal: deadline.signal }).catch(() => raw.body.destroy());
      if (redirects >= options.maxRedirects) throw tooManyRedirects(url, options.maxRedirects);
      if (options.followRedirect && !(await options.followRedirect(next.href))) throw new RedirectDeclined(next.href);
      log.debug({ event: 'fetch_redirect', url: current.href, to: next.href, status: raw.statusCode }, 'following redirect');
      current = next;
    }
  } catch (error) {
    deadline.clear();
    if (error instanceof RedirectDeclined) throw error;
    throw toFetchFailure(error, { url: current.href, deadline, callerSignal: options.signal });
  }
}

function parseUrl(url: string, base?: URL): URL {
  try {
    return new URL(url, base);
  } catch (error) {
    log.warn({ event: 'invalid_url', url: url.slice(0, 2_048), base: base?.href }, 'not a valid URL');
    throw new FetchError('invalid_url', `not a valid URL: ${printableUrl(url.slice(0, 200))}`, { url, cause: error });
  }
}

/**
 * A 429 or 503 whose Retry-After fits in what is left of the deadline: drains it, waits, and says to ask again.
 * A wait that would outlast the deadline is not started: the response goes back to the caller as it is.
 */
async function waitedForRetry(
  raw: Dispatcher.ResponseData,
  at: { url: URL; options: RequestOptions; deadline: Deadline; startedAt: number },
): Promise<boolean> {
  if (!RETRY_AFTER_STATUSES.has(raw.statusCode)) return false;
  const waitMs = retryAfterMs(firstValue(raw.headers['retry-after']) ?? null);
  const leftMs = at.options.timeoutMs - (Date.now() - at.startedAt);
  if (waitMs === null || waitMs >= leftMs - 100) return false;
  await raw.body.dump({ limit: DRAIN_LIMIT, signal: at.deadline.signal }).catch(() => raw.body.destroy());
  log.info({ event: 'retry_after', url: at.url.href, status: raw.statusCode, waitMs }, 'server asked to retry later');
  await sleep(waitMs, at.deadline.signal);
  at.deadline.signal.throwIfAborted();
  return true;
}

async function dispatch(url: URL, options: RequestOptions, how: { extra: ExtraHeaders; deadline: Deadline }): Promise<Dispatcher.ResponseData> {
  const proxy = proxyFor(url, options.proxy);
  // Through a proxy the name is resolved by the proxy: check it with DNS here first, as the direct connector does.
  if (proxy !== null) await assertHostAllowed(url, options.net);
  await waitForSlot(url.host, options.ratePerHost, how.deadline.signal);
  how.deadline.signal.throwIfAborted();
  // identity unless asked otherwise: safeRequest hands out raw bytes, and only openSitemap decodes.
  const headers = {
    'user-agent': options.userAgent,
    accept: options.accept ?? '*/*',
    ...options.headers,
    'accept-encoding': 'identity',
    ...how.extra,
  };
  const request: Dispatcher.RequestOptions = {
    origin: url.origin,
    path: `${url.pathname}${url.search}`,
    method: options.method ?? 'GET',
    headers,
    signal: how.deadline.signal,
  };
  return sendTo(proxy === null ? agentFor(options.net) : await proxyAgentFor(proxy), request);
}

// The next URL of a redirect, or null when this response is the final one (no Location: nothing to follow).
function redirectTarget(raw: Dispatcher.ResponseData, current: URL): URL | null {
  if (!REDIRECT_STATUSES.has(raw.statusCode)) return null;
  const location = firstValue(raw.headers.location);
  return location === undefined ? null : parseUrl(location, current);
}

function tooManyRedirects(url: string, limit: number): FetchError {
  log.warn({ event: 'too_many_redirects', url, limit }, 'redirect limit reached');
  return new FetchError('too_many_redirects', `more than ${limit} redirects`, { url, limit });
}

function toSafeResponse(raw: Dispatcher.ResponseData, meta: { url: string; redirects: number; deadline: Deadline; options: RequestOptions }): SafeResponse {
  const { url, redirects, deadline, options } = meta;
  const context = { url, status: raw.statusCode, maxBytes: options.maxDownloadBytes, deadline, callerSignal: options.signal };
  const { body, discard } = cappedBody(raw.body as RawBody, context);
  return { url, status: raw.statusCode, headers: responseHeaders(raw.headers), redirects, body, discard };
}

function firstValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
