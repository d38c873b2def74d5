import type { NetPolicy, ProxyOptions } from '../../core/limits.js';

/** How one request is made and bounded. */
export interface RequestOptions {
  /** One wall-clock deadline covering connect, redirects, headers and body. */
  timeoutMs: number;
  /** Redirect hops followed (each re-checked by the SSRF guard); one more is `too_many_redirects`. */
  maxRedirects: number;
  userAgent: string;
  /** Which private targets this request may reach. */
  net: NetPolicy;
  /** Raw bytes read off the wire; more is `too_large`. */
  maxDownloadBytes: number;
  /** Caller cancellation: the request rejects with the signal's reason. */
  signal?: AbortSignal;
  method?: 'GET' | 'HEAD';
  accept?: string;
  /** Extra headers (validated by WalkOptionsSchema: no hop-by-hop, Host or Accept-Encoding). */
  headers?: Readonly<Record<string, string>>;
  /** Send through this proxy unless its noProxy list names the host. */
  proxy?: ProxyOptions | null;
  /** Requests per second per host. */
  ratePerHost?: number | null;
  /** 429/503 answers whose Retry-After fits the deadline are waited out and asked again, at most this often. */
  retries?: number;
  /**
   * Asked before each redirect hop is followed: false stops the request with `RedirectDeclined` before the target
   * is fetched (a sitemap redirecting into one already read is not fetched a second time).
   */
  followRedirect?: (url: string) => boolean | Promise<boolean>;
}

/** A redirect the caller declined to follow (`followRedirect` said no): not a failure, the target is known already. */
export class RedirectDeclined extends Error {
  override name = 'RedirectDeclined';
  constructor(readonly target: string) {
    super(`redirect to ${target} not followed`);
  }
}

/** A response whose body is capped and covered by the request deadline. */
export interface SafeResponse {
  /** Final URL after redirects. */
  url: string;
  status: number;
  headers: Headers;
  redirects: number;
  /** Raw bytes (Content-Encoding not decoded); iterate once, or call `discard`. */
  body: AsyncIterable<Uint8Array>;
  /** Releases the response without reading it. */
  discard(): Promise<void>;
}

/** Options of `openSitemap`: a request plus the decompressed-size cap. */
export interface OpenSitemapOptions extends RequestOptions {
  /** Bytes after decompression, checked at every gzip layer; more is `too_large`. */
  maxUncompressedBytes: number;
}

/** The validators of a previous response, sent as `If-None-Match` / `If-Modified-Since`. */
export interface ConditionalRequest {
  etag: string | null;
  lastModified: string | null;
}

/** `openSitemapIfModified`'s answer when the server says the document did not change since the validators (304). */
export interface NotModifiedSitemap {
  notModified: true;
  /** Final URL after redirects. */
  url: string;
  /** The 304's own validators, when it sent any (a server may refresh them). */
  etag: string | null;
  lastModified: string | null;
}

/** A sitemap response that passed the status check, with its body fully decoded. */
export interface OpenedSitemap {
  url: string;
  status: number;
  contentType: string | null;
  /** True when at least one gzip layer was removed. */
  gzipped: boolean;
  /** The response's `Content-Encoding` (null when absent, or for a local file). */
  contentEncoding: string | null;
  /** Decoded bytes, streamed; errors (`too_large`, `decompress`, `timeout`) surface while iterating. */
  bytes: AsyncIterable<Uint8Array>;
  /** The body's length as the server declared it (Content-Length), or null when it did not. */
  declaredBytes: number | null;
  /** Raw bytes read off the wire so far: with `declaredBytes`, how much of the file a partial read saw. */
  wireBytes(): number;
  /** The response's `ETag` and `Last-Modified` (null when absent, or for a local file): validators for the next run. */
  etag: string | null;
  lastModified: string | null;
  notModified?: never;
}
