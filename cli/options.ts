import { z } from 'zod';
import { proxyFromEnv, parseResolveEntry, REFUSED_HEADERS, type NetPolicy, type WalkOptionsInput, type FilterOptionsInput } from '../lib/index.js';
import { UsageError } from './io.js';
import { ScheduleSchema } from '../lib/inventory/index.js';

/** Values of the network and filter flags as commander hands them over. */
export interface CommonFlags {
  allowPrivate?: boolean;
  allowHost?: string[];
  resolve?: string[];
  timeout?: string;
  concurrency?: string;
  maxDepth?: string;
  maxChildren?: string;
  maxUrls?: string;
  userAgent?: string;
  header?: string[];
  cookie?: string;
  proxy?: string;
  rate?: string;
  retries?: string;
  verbose?: boolean;
  progress?: boolean;
  quiet?: boolean;
  include?: string[];
  exclude?: string[];
  pathPrefix?: string[];
  locale?: string[];
  since?: string;
  requireLastmod?: boolean;
  scope?: 'all' | 'domain' | 'host';
}

/** `--schedule 24h|off` checked as the API checks it (a usage error otherwise), kept as written; undefined when absent. */
export function scheduleFlag(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const parsed = ScheduleSchema.safeParse(value);
  if (!parsed.success) throw new UsageError(`--schedule: ${parsed.error.issues[0]?.message ?? 'invalid'}, not "${value}"`);
  return value;
}

/** A whole number flag (`--concurrency 4`), or undefined when absent. */
export function intFlag(name: string, value: string | undefined, min = 0, max = Number.MAX_SAFE_INTEGER): number | undefined {
  if (value === undefined) return undefined;
  const parsed = z.coerce
    .number()
    .int()
    .min(min)
    .max(max)
    .safeParse(value.trim() === '' ? Number.NaN : value);
  if (!parsed.success) throw new UsageError(`--${name} takes a whole number in ${min}..${max}, not "${value}"`);
  return parsed.data;
}

function numberFlag(name: string, value: string | undefined, max: number): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0 || parsed > max) throw new UsageError(`--${name} takes a number above 0 and up to ${max}, not "${value}"`);
  return parsed;
}

/** A `--resolve HOST:PORT:ADDR` flag, or a UsageError naming it. */
function resolveFlag(entry: string): NetPolicy['resolve'][number] {
  const parsed = parseResolveEntry(entry);
  if (parsed === null) throw new UsageError(`--resolve takes HOST:PORT:ADDR with a port up to 65535 and an IP address, not "${entry}"`);
  return parsed;
}

/** The network policy from the flags. */
export function netPolicyFrom(flags: Pick<CommonFlags, 'allowPrivate' | 'allowHost' | 'resolve'>): NetPolicy {
  return {
    allowPrivate: flags.allowPrivate === true,
    allowHosts: (flags.allowHost ?? []).map((host) => host.trim().toLowerCase()).filter(Boolean),
    resolve: (flags.resolve ?? []).map(resolveFlag),
  };
}

/** `Name: value` header flags (and --cookie) as a record; the names are checked by WalkOptionsSchema. */
function headersFrom(flags: CommonFlags): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const header of flags.header ?? []) {
    const colon = header.indexOf(':');
    if (colon <= 0) throw new UsageError(`--header takes "Name: value", not "${header}"`);
    const name = header.slice(0, colon).trim().toLowerCase();
    if (REFUSED_HEADERS.has(name))
      throw new UsageError(`--header ${name} is not settable (hop-by-hop, Host, Content-Length and Accept-Encoding are the client's)`);
    headers[name] = header.slice(colon + 1).trim();
  }
  if (flags.cookie !== undefined) headers.cookie = flags.cookie;
  return headers;
}

/** The filter flags as library filter options. */
export function filterFrom(flags: CommonFlags): FilterOptionsInput {
  return {
    include: flags.include ?? [],
    exclude: flags.exclude ?? [],
    pathPrefixes: flags.pathPrefix ?? [],
    locales: flags.locale ?? [],
    since: flags.since ?? null,
    requireLastmod: flags.requireLastmod ?? false,
    scope: flags.scope ?? 'all',
  };
}

/** Walk options from the common flags (validated later by WalkOptionsSchema; its errors are usage errors). */
export function walkOptionsFrom(flags: CommonFlags, env: NodeJS.ProcessEnv): WalkOptionsInput {
  const options: WalkOptionsInput = { net: netPolicyFrom(flags), headers: headersFrom(flags), filter: filterFrom(flags) };
  const timeout = intFlag('timeout', flags.timeout, 1);
  const concurrency = intFlag('concurrency', flags.concurrency, 1);
  const maxDepth = intFlag('max-depth', flags.maxDepth, 0);
  const maxUrls = intFlag('max-urls', flags.maxUrls, 1);
  const maxChildren = intFlag('max-children', flags.maxChildren, 1);
  const retries = intFlag('retries', flags.retries, 0, 10);
  const rate = numberFlag('rate', flags.rate, 1_000);
  if (timeout !== undefined) Object.assign(options, { timeoutMs: timeout, robotsTimeoutMs: timeout });
  if (concurrency !== undefined) options.concurrency = Math.min(concurrency, 64);
  if (maxDepth !== undefined) options.maxDepth = maxDepth;
  if (maxUrls !== undefined) options.maxUrls = maxUrls;
  if (maxChildren !== undefined) options.maxChildrenPerIndex = maxChildren;
  if (retries !== undefined) options.retries = retries;
  if (rate !== undefined) options.ratePerHost = rate;
  if (flags.userAgent) options.userAgent = flags.userAgent;
  const proxy = proxyFromEnv(env, flags.proxy);
  if (proxy !== null) options.proxy = proxy;
  return options;
}
