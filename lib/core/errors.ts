/** Every failure kind the engine, the CLI and the HTTP API can report (DESIGN "Error kinds"). */
export const ERROR_KINDS = [
  'blocked_ssrf',
  'invalid_url',
  'too_large',
  'decompress',
  'doctype_forbidden',
  'invalid_xml',
  'invalid_encoding',
  'not_sitemap',
  'unsupported_format',
  'http_status',
  'too_many_children',
  'too_many_urls',
  'too_deep',
  'timeout',
  'too_many_redirects',
  'robots_unreachable',
  'robots_forbidden',
  'fetch_failed',
  'bad_request',
  'unauthorized',
  'forbidden',
  'not_found',
  'method_not_allowed',
  'conflict',
  'rate_limited',
  'store_unavailable',
  'config',
  'output_failed',
  'internal',
] as const;

/** One of the DESIGN error kinds. */
export type ErrorKind = (typeof ERROR_KINDS)[number];

/** Where a failure happened: the numbers an operator needs to reproduce it. */
export interface ErrorContext {
  /** Bytes read (or decompressed) when the failure happened. */
  bytes?: number;
  /** Depth of the sitemap in the index tree (root = 0). */
  depth?: number;
  /** The index that listed the failing sitemap. */
  parent?: string | null;
  /** HTTP status of the response, for `http_status` and robots failures. */
  status?: number;
  /** The limit that was exceeded, for the limit kinds. */
  limit?: number;
}

/** Options of a FactoryError beyond kind and message. */
export interface FactoryErrorOptions extends ErrorContext {
  url?: string | null;
  cause?: unknown;
}

/** Base of every typed error: a `kind` from the DESIGN list, the URL it concerns and context. */
export class FactoryError extends Error {
  override name = 'FactoryError';
  readonly kind: ErrorKind;
  readonly url: string | null;
  readonly context: ErrorContext;

  constructor(kind: ErrorKind, message: string, options: FactoryErrorOptions = {}) {
    const { url = null, cause, ...context } = options;
    super(message, cause === undefined ? undefined : { cause });
    this.kind = kind;
    this.url = url;
    this.context = context;
  }

  /** The error as plain data, for NDJSON events and JSON bodies. */
  toJSON(): { kind: ErrorKind; message: string; url: string | null } & ErrorContext {
    return { kind: this.kind, message: this.message, url: this.url, ...this.context };
  }
}

/** A network-side failure: SSRF refusal, timeout, redirects, status, transport. */
export class FetchError extends FactoryError {
  override name = 'FetchError';
}

/** The content could not be read as a sitemap: XML, encoding, format, DOCTYPE, gzip. */
export class ParseError extends FactoryError {
  override name = 'ParseError';
}

/** A configured limit was exceeded: size, URL count, children, depth. */
export class LimitError extends FactoryError {
  override name = 'LimitError';
}

/** A caller's request was refused: bad input, auth, unknown or conflicting job. */
export class RequestError extends FactoryError {
  override name = 'RequestError';
}

/** True for any FactoryError, also one from another copy of this module (checks `name` and `kind`). */
export function isFactoryError(value: unknown): value is FactoryError {
  return value instanceof FactoryError || (value instanceof Error && typeof (value as { kind?: unknown }).kind === 'string' && 'context' in value);
}

/** Wraps anything thrown into a FactoryError of `fallback` kind, keeping a FactoryError as it is. */
export function toFactoryError(error: unknown, fallback: ErrorKind, options: FactoryErrorOptions = {}): FactoryError {
  if (isFactoryError(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new FactoryError(fallback, message, { ...options, cause: error });
}
