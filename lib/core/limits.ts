import { isIP } from 'node:net';
import { z } from 'zod';
import { FilterOptionsSchema } from './filter-options.js';

/** Default limits (DESIGN "Limits"); every one is an option, and each violation has its own error kind. */
export const DEFAULT_LIMITS = {
  /** sitemaps.org and Google: a sitemap may be at most 50 MiB uncompressed. */
  maxUncompressedBytes: 52_428_800,
  /** Bytes read off the wire per response: the 50 MiB rule plus slack for headers and gzip framing. */
  maxDownloadBytes: 54_525_952,
  /** sitemaps.org: at most 50,000 URLs a file; the first 50,000 are kept and `too_many_urls` reported. */
  maxUrlsPerSitemap: 50_000,
  /** sitemaps.org: at most 50,000 sitemaps in one index. */
  maxChildrenPerIndex: 50_000,
  /** RFC 7230 practice: longer locs are dropped and counted. */
  maxUrlLength: 2_048,
  /** Unlimited: cycles are caught by identity, not by depth. */
  maxDepth: Number.POSITIVE_INFINITY,
  /** Unlimited: the walk streams. */
  maxUrls: Number.POSITIVE_INFINITY,
  /** Guards against index bombs that list sitemaps that list sitemaps... */
  maxSitemaps: 100_000,
  /** RFC 9309 asks crawlers to follow at least five redirects. */
  maxRedirects: 5,
  /** RFC 9309: crawlers must parse at least 500 KiB of robots.txt. */
  maxRobotsBytes: 512_000,
  /** Wall clock for robots.txt, body included. */
  robotsTimeoutMs: 8_000,
  /** Wall clock for one sitemap, body included. */
  timeoutMs: 30_000,
  /** Sub-sitemaps in flight at once. */
  concurrency: 8,
  userAgent: 'AlgoliaCentralFactory/1.0',
  /** Extra attempts at a sitemap after a dropped connection, a 502/503/504, or a 429/503 whose Retry-After fits the deadline. */
  retries: 2,
} as const;

/**
 * Request headers a caller may not set: hop-by-hop headers (RFC 9110 section 7.6.1) belong to one connection, and
 * Host, Content-Length and Accept-Encoding are the client's to decide (the byte caps depend on them).
 */
export const REFUSED_HEADERS = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'content-length',
  'accept-encoding',
]);

// RFC 9110 token characters for a field name; a value may not carry CR, LF or NUL (header injection).
const HeaderNameSchema = z
  .string()
  .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'not a valid header name')
  .transform((name) => name.toLowerCase())
  .refine((name) => !REFUSED_HEADERS.has(name), { message: 'hop-by-hop, Host, Content-Length and Accept-Encoding headers are not settable' });
/** A request header value (the user agent too): no CR, LF or NUL, which would inject headers of their own. */
export const HeaderValueSchema = z
  .string()
  .max(8_192)
  .regex(/^[^\r\n\0]*$/, 'header values may not contain CR, LF or NUL');

/** An outbound proxy: http(s) URL; hosts matching `noProxy` (NO_PROXY syntax: `host`, `.suffix`, `*`) go direct. */
export const ProxySchema = z.object({
  url: z.url({ protocol: /^https?$/ }),
  noProxy: z.array(z.string()).default([]),
});
export type ProxyOptions = z.output<typeof ProxySchema>;

/** Private targets a caller opens on purpose; everything else that is not public is refused. */
export const NetPolicySchema = z.object({
  /** Allow loopback and private ranges (tests, local sites). */
  allowPrivate: z.boolean().default(false),
  /** Exactly these private targets, as `host` or `host:port`. */
  allowHosts: z.array(z.string()).default([]),
  /** curl-style static DNS: `host:port` is dialled at `address` (the address is still checked). */
  resolve: z.array(z.object({ host: z.string(), port: z.number().int(), address: z.string() })).default([]),
});
export type NetPolicy = z.infer<typeof NetPolicySchema>;
/** A network policy as callers pass it: every field optional. */
export type NetPolicyInput = z.input<typeof NetPolicySchema>;

/**
 * One curl-style `HOST:PORT:ADDR` static DNS entry (`--resolve`, FACTORY_RESOLVE); an IPv6 address may be
 * bracketed. Null when malformed: a port above 65535 or an address that is not an IP is refused too.
 */
export function parseResolveEntry(entry: string): NetPolicy['resolve'][number] | null {
  const match = /^([^:]+):(\d{1,5}):\[?([^\]]+)\]?$/.exec(entry.trim());
  const [, host = '', port = '', address = ''] = match ?? [];
  if (!match || Number(port) > 65_535 || isIP(address) === 0) return null;
  return { host: host.toLowerCase(), port: Number(port), address };
}

const positiveInt = z.number().int().positive();
const limitOrInfinity = z.union([positiveInt, z.literal(Number.POSITIVE_INFINITY)]);

/** Options of discovery and walking, validated once at the boundary. */
export const WalkOptionsSchema = z.object({
  maxUncompressedBytes: positiveInt.default(DEFAULT_LIMITS.maxUncompressedBytes),
  maxDownloadBytes: positiveInt.default(DEFAULT_LIMITS.maxDownloadBytes),
  maxUrlsPerSitemap: positiveInt.default(DEFAULT_LIMITS.maxUrlsPerSitemap),
  maxChildrenPerIndex: positiveInt.default(DEFAULT_LIMITS.maxChildrenPerIndex),
  maxUrlLength: positiveInt.default(DEFAULT_LIMITS.maxUrlLength),
  maxDepth: z.union([z.number().int().nonnegative(), z.literal(Number.POSITIVE_INFINITY)]).default(DEFAULT_LIMITS.maxDepth),
  maxUrls: limitOrInfinity.default(DEFAULT_LIMITS.maxUrls),
  maxSitemaps: positiveInt.default(DEFAULT_LIMITS.maxSitemaps),
  maxRedirects: z.number().int().nonnegative().default(DEFAULT_LIMITS.maxRedirects),
  maxRobotsBytes: positiveInt.default(DEFAULT_LIMITS.maxRobotsBytes),
  robotsTimeoutMs: positiveInt.default(DEFAULT_LIMITS.robotsTimeoutMs),
  timeoutMs: positiveInt.default(DEFAULT_LIMITS.timeoutMs),
  concurrency: positiveInt.max(64).default(DEFAULT_LIMITS.concurrency),
  userAgent: HeaderValueSchema.min(1).default(DEFAULT_LIMITS.userAgent),
  net: NetPolicySchema.default({ allowPrivate: false, allowHosts: [], resolve: [] }),
  /** Extra request headers (`cookie`, `authorization`, ...) sent with every robots.txt and sitemap request. */
  headers: z.record(HeaderNameSchema, HeaderValueSchema).default({}),
  /** Route requests through this proxy; the SSRF guard still checks every target before it is asked for. */
  proxy: ProxySchema.nullable().default(null),
  /** Requests per second per host (polite crawling); null: as fast as `concurrency` allows. */
  ratePerHost: z.number().positive().max(1_000).nullable().default(null),
  retries: z.number().int().nonnegative().max(10).default(DEFAULT_LIMITS.retries),
  /** Which page URLs are kept (include/exclude, path prefixes, locales, since, scope), applied while streaming. */
  filter: FilterOptionsSchema.prefault({}),
});

/** Walk options as callers pass them: every field optional. */
export type WalkOptionsInput = z.input<typeof WalkOptionsSchema>;
/** Walk options with every default filled in. */
export type WalkOptions = z.output<typeof WalkOptionsSchema>;

/** Fills defaults and validates; throws a ZodError on nonsense (callers map it to `bad_request`). */
export function resolveWalkOptions(input: WalkOptionsInput = {}): WalkOptions {
  return WalkOptionsSchema.parse(input);
}

/** Limits a caller may set on a job; the network policy is the server's, never the caller's. */
export const CallerOptionsSchema = z
  .object({
    maxDepth: z.number().int().nonnegative().max(1_000),
    maxUrls: z.number().int().positive(),
    maxUrlsPerSitemap: z.number().int().positive().max(50_000),
    maxChildrenPerIndex: z.number().int().positive().max(50_000),
    maxSitemaps: z.number().int().positive().max(100_000),
    maxUrlLength: z.number().int().positive().max(8_192),
    maxUncompressedBytes: z.number().int().positive().max(52_428_800),
    maxDownloadBytes: z.number().int().positive().max(54_525_952),
    timeoutMs: z.number().int().positive().max(60_000),
    concurrency: z.number().int().positive().max(16),
    userAgent: HeaderValueSchema.min(1).max(200),
    /** The same entry filters as the library and the CLI (the wizard's "sub-tree" choice). */
    filter: FilterOptionsSchema,
  })
  .partial()
  .strict();
export type CallerOptions = z.infer<typeof CallerOptionsSchema>;
