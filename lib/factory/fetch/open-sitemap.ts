import { FetchError, LimitError } from '../../core/errors.js';
import { createLogger } from '../../utils/logger.js';
import { decodeBody } from './decode-body.js';
import { sendRequest } from './http-client.js';
import type { ConditionalRequest, NotModifiedSitemap, OpenSitemapOptions, OpenedSitemap, SafeResponse } from './types.js';

const log = createLogger('factory:fetch');

/** What sitemap requests accept; the content is sniffed anyway, so anything is read. */
const SITEMAP_ACCEPT = 'application/xml, text/xml;q=0.9, text/plain;q=0.8, */*;q=0.5';
/** Every coding `decodeBody` can undo; compressed transfers are much smaller for XML. */
const SITEMAP_ACCEPT_ENCODING = 'gzip, deflate, br';

/** GETs a sitemap, refuses non-2xx before any parsing, and streams its fully decoded bytes. */
export async function openSitemap(url: string, options: OpenSitemapOptions): Promise<OpenedSitemap> {
  const response = await sendRequest(url, sitemapRequest(options), { 'accept-encoding': SITEMAP_ACCEPT_ENCODING });
  return openedFrom(response, options);
}

/**
 * `openSitemap` asking with a previous response's validators (`If-None-Match`, `If-Modified-Since`): a 304 is the
 * distinct not-modified answer, never an `http_status` error. Without validators it is `openSitemap`.
 */
export async function openSitemapIfModified(
  url: string,
  options: OpenSitemapOptions,
  conditional: ConditionalRequest | null,
): Promise<OpenedSitemap | NotModifiedSitemap> {
  if (conditional === null) return openSitemap(url, options);
  const response = await sendRequest(url, sitemapRequest(options), { 'accept-encoding': SITEMAP_ACCEPT_ENCODING, ...conditionalHeaders(conditional) });
  if (response.status !== 304) return openedFrom(response, options);
  await response.discard();
  log.debug({ event: 'sitemap_not_modified', url: response.url }, 'sitemap not modified since the previous run');
  return { notModified: true, url: response.url, ...validatorsOf(response) };
}

function sitemapRequest(options: OpenSitemapOptions) {
  return { ...options, method: 'GET' as const, accept: options.accept ?? SITEMAP_ACCEPT };
}

function conditionalHeaders(conditional: ConditionalRequest): Record<string, string> {
  return {
    ...(conditional.etag === null ? {} : { 'if-none-match': conditional.etag }),
    ...(conditional.lastModified === null ? {} : { 'if-modified-since': conditional.lastModified }),
  };
}

function validatorsOf(response: SafeResponse): { etag: string | null; lastModified: string | null } {
  return { etag: response.headers.get('etag'), lastModified: response.headers.get('last-modified') };
}

async function openedFrom(response: SafeResponse, options: OpenSitemapOptions): Promise<OpenedSitemap> {
  try {
    assertSuccess(response);
    const declaredBytes = declaredSize(response, options.maxDownloadBytes);
    const contentEncoding = response.headers.get('content-encoding');
    const decodeOptions = { url: response.url, contentEncoding, maxBytes: options.maxUncompressedBytes };
    const wire = { bytes: 0 };
    const { gzipped, bytes } = await decodeBody(metered(response.body, wire), decodeOptions);
    const contentType = response.headers.get('content-type');
    const served = { contentType, contentEncoding, ...validatorsOf(response) };
    return { url: response.url, status: response.status, ...served, gzipped, bytes, declaredBytes, wireBytes: () => wire.bytes };
  } catch (error) {
    await response.discard();
    throw error;
  }
}

// A 404 page is often XML or HTML that would parse; the status decides first.
function assertSuccess(response: SafeResponse): void {
  if (response.status >= 200 && response.status < 300) return;
  log.warn({ event: 'http_status', url: response.url, status: response.status }, 'sitemap answered with an error status');
  throw new FetchError('http_status', `HTTP ${response.status}`, { url: response.url, status: response.status });
}

// Refuses early what the server itself says is too big, instead of reading up to the cap first.
function declaredSize(response: SafeResponse, limit: number): number | null {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (!(declared > limit)) return Number.isFinite(declared) && declared > 0 ? declared : null;
  log.warn({ event: 'download_too_large', url: response.url, bytes: declared, limit }, 'declared length over the cap');
  throw new LimitError('too_large', `Content-Length ${declared} is over ${limit} bytes`, { url: response.url, bytes: declared, limit });
}

// Counts raw bytes as the decoder pulls them (the scope estimate scales a partial read by them).
async function* metered(body: AsyncIterable<Uint8Array>, wire: { bytes: number }): AsyncGenerator<Uint8Array> {
  for await (const chunk of body) {
    wire.bytes += chunk.byteLength;
    yield chunk;
  }
}
