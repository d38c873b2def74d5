import type { OpenSitemapOptions, RequestOptions } from './index.js';
import type { WalkOptions } from '../../core/limits.js';

/** The request settings every fetch of a walk shares: headers, proxy, politeness and retries. */
function shared(options: WalkOptions) {
  return { headers: options.headers, proxy: options.proxy, ratePerHost: options.ratePerHost, retries: options.retries };
}

/** Request options for one sitemap fetch, from the walk's options. */
export function sitemapRequestOptions(options: WalkOptions, signal?: AbortSignal): OpenSitemapOptions {
  return {
    timeoutMs: options.timeoutMs,
    maxRedirects: options.maxRedirects,
    userAgent: options.userAgent,
    net: options.net,
    maxDownloadBytes: options.maxDownloadBytes,
    maxUncompressedBytes: options.maxUncompressedBytes,
    accept: 'application/xml, text/xml;q=0.9, text/plain;q=0.8, */*;q=0.5',
    ...shared(options),
    ...(signal ? { signal } : {}),
  };
}

/** Request options for robots.txt: its own shorter deadline and the RFC 9309 read limit. */
export function robotsRequestOptions(options: WalkOptions, signal?: AbortSignal): RequestOptions {
  return {
    timeoutMs: options.robotsTimeoutMs,
    maxRedirects: options.maxRedirects,
    userAgent: options.userAgent,
    net: options.net,
    // robots.txt past the read limit is cut, not refused, so the download cap only guards the transport.
    maxDownloadBytes: options.maxDownloadBytes,
    accept: 'text/plain, */*;q=0.5',
    ...shared(options),
    ...(signal ? { signal } : {}),
  };
}
