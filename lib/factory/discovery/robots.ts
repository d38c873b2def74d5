import { FactoryError, isFactoryError } from '../../core/errors.js';
import { readTextCapped, safeRequest } from '../fetch/index.js';
import type { WalkOptions } from '../../core/limits.js';
import { robotsRequestOptions } from '../fetch/request-options.js';
import { parseRobotsTxt, type RobotsTxt } from './robots-rules.js';
import { createLogger } from '../../utils/logger.js';

export { isPathAllowed, parseRobotsTxt, type RobotsRule, type RobotsTxt } from './robots-rules.js';

const log = createLogger('factory:robots');

/** robots.txt as fetched: `missing` (4xx: crawl freely) or `ok` with its parsed content. */
export type RobotsResult =
  { status: 'ok'; url: string; httpStatus: number; robots: RobotsTxt; truncated: boolean } | { status: 'missing'; url: string; httpStatus: number };

const EMPTY_ROBOTS: RobotsTxt = { sitemaps: [], rules: [], crawlDelaySeconds: null, invalidSitemapLines: [] };

/** The robots.txt URL of a site root (`https://host[:port]/robots.txt`). */
export function robotsUrlOf(rootUrl: string): string {
  return new URL('/robots.txt', rootUrl).href;
}

/** Robots of a result, empty when there is no robots.txt. */
export function robotsOf(result: RobotsResult): RobotsTxt {
  return result.status === 'ok' ? result.robots : EMPTY_ROBOTS;
}

/**
 * Fetches and parses robots.txt per RFC 9309: 2xx parsed (first 500 KiB), 4xx means no robots,
 * 5xx / 429 / unreachable throws `robots_unreachable` (the RFC says to assume a complete disallow).
 * An SSRF refusal is not "unreachable": it is thrown as `blocked_ssrf`.
 */
export async function fetchRobotsTxt(rootUrl: string, options: WalkOptions, signal?: AbortSignal): Promise<RobotsResult> {
  const url = robotsUrlOf(rootUrl);
  const response = await safeRequest(url, robotsRequestOptions(options, signal)).catch((error: unknown) => {
    throw signal?.aborted ? error : unreachable(url, error);
  });
  if (response.status >= 400 && response.status < 500 && response.status !== 429) {
    await response.discard();
    log.info({ event: 'robots_missing', url, status: response.status }, 'no robots.txt: going on without it');
    return { status: 'missing', url: response.url, httpStatus: response.status };
  }
  if (response.status < 200 || response.status >= 300) {
    await response.discard();
    throw new FactoryError('robots_unreachable', `robots.txt answered ${response.status}: RFC 9309 says assume disallow-all`, {
      url,
      status: response.status,
    });
  }
  const { text, truncated } = await readTextCapped(response, options.maxRobotsBytes).catch((error: unknown) => {
    throw signal?.aborted ? error : unreachable(url, error);
  });
  const robots = parseRobotsTxt(text, response.url, options.userAgent);
  log.info({ event: 'robots_fetched', url, sitemaps: robots.sitemaps.length, truncated }, 'robots.txt read');
  return { status: 'ok', url: response.url, httpStatus: response.status, robots, truncated };
}

/** Maps a transport failure to `robots_unreachable`, keeping SSRF refusals and bad URLs as they are. */
function unreachable(url: string, error: unknown): FactoryError {
  if (isFactoryError(error) && (error.kind === 'blocked_ssrf' || error.kind === 'invalid_url')) return error;
  const message = error instanceof Error ? error.message : String(error);
  log.warn({ event: 'robots_unreachable', url, reason: message }, 'robots.txt unreachable');
  return new FactoryError('robots_unreachable', `robots.txt unreachable: ${message}`, { url, cause: error });
}
